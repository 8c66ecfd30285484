import { existsSync } from "node:fs";
import type { App } from "../app/context.ts";
import { IndxError } from "../core/errors.ts";
import { LinkResolver } from "../vault/link-resolver.ts";
import { closest } from "./suggest.ts";

/**
 * A path typed on the command line, as a person types it: when no such file exists, an
 * Obsidian-style name (`note get "Apollo Launch"`) is resolved as the wikilink [[Apollo Launch]]
 * would be, from the vault root. REST and MCP take exact paths; only the CLI guesses, and only
 * for reads. Returns the path to use.
 */
export function resolveTypedPath(ctx: App, typed: string): string {
  try {
    ctx.vault.safePath(typed);
  } catch {
    return typed; // not a valid vault path: the operation's own error says why
  }
  if (fileExists(ctx, typed)) return typed;
  const paths = indexedPaths(ctx);
  return (paths && new LinkResolver(paths).resolve(typed.replace(/^\[\[|\]\]$/g, ""), "")) ?? typed;
}

/** A not_found error about a path, with the closest indexed paths as suggestions. */
export function withPathSuggestions(err: unknown, ctx: App, typed: string): unknown {
  if (!(err instanceof IndxError) || err.code !== "not_found") return err;
  const paths = indexedPaths(ctx);
  if (!paths) return err;
  const near = closest(typed, paths);
  const byName = near.length
    ? near
    : closest(
        typed.split("/").pop() ?? typed,
        paths.map((p) => p.split("/").pop() ?? p),
      ).flatMap((n) => paths.filter((p) => p.endsWith(`/${n}`) || p === n));
  if (byName.length === 0) return err;
  return new IndxError(err.code, `${err.message} Did you mean ${byName.slice(0, 3).join(" or ")}?`, { ...err.details, suggestions: byName.slice(0, 3) });
}

function indexedPaths(ctx: App): string[] | null {
  try {
    return ctx.index.files.paths();
  } catch {
    return null; // no index yet: nothing to suggest from
  }
}

/** `Note.md:12` (from line 12 on) and `Note.md:12-40` (lines 12 to 40), as editors and grep print them. */
const LINE_SUFFIX = /^(.+):(\d+)(?:-(\d+))?$/;

/**
 * A typed path with a line suffix, split into the path and the from/lines inputs. A file whose
 * name really ends that way is read whole. Obsidian refuses ':' in file names, so the suffix is
 * rarely ambiguous.
 */
export function splitLineSuffix(ctx: App, typed: string): { path: string; from?: number; lines?: number } {
  const m = LINE_SUFFIX.exec(typed);
  const path = m?.[1];
  if (!m || path === undefined || fileExists(ctx, typed)) return { path: typed };
  const from = Number(m[2]);
  if (m[3] === undefined) return { path, from };
  const to = Number(m[3]);
  if (to < from) throw new IndxError("validation_failed", `The line range ${from}-${to} ends before it starts.`, { field: "path" });
  return { path, from, lines: to - from + 1 };
}

function fileExists(ctx: App, typed: string): boolean {
  try {
    return existsSync(ctx.vault.abs(ctx.vault.safePath(typed)));
  } catch {
    return false;
  }
}
