import { existsSync } from "node:fs";
import { IndxError } from "../core/errors.ts";
import { closest } from "../core/suggest.ts";
import type { NoteNames, OpContext } from "../ops/context.ts";
import { LinkResolver } from "../vault/link-resolver.ts";

/**
 * A note named as a person or an agent names it (docs/contracts.md, Paths): when no file is at the
 * path given, an Obsidian-style name (`Apollo Launch`, `[[Runbook]]`) is resolved as the wikilink
 * [[name]] would be, from the vault root. One rule for the CLI, REST and MCP, for reads only: a
 * write never lands on a guessed note, and note_exists answers for the exact path. Returns the
 * path to use.
 */
function resolveTypedPath(ctx: Pick<OpContext, "vault" | "index">, typed: string): string {
  try {
    ctx.vault.safePath(typed);
  } catch {
    return typed; // not a valid vault path: the operation's own error says why
  }
  if (fileExists(ctx, typed)) return typed;
  const paths = indexedPaths(ctx);
  return (paths && new LinkResolver(paths).resolve(typed.replace(/^\[\[|\]\]$/g, ""), "")) ?? typed;
}

/** Note names over a context's index (OpContext.noteNames): a call with a folder grant resolves and suggests among what it may see. */
export function noteNamesOf(ctx: Pick<OpContext, "vault" | "index">): NoteNames {
  return { resolve: (typed) => resolveTypedPath(ctx, typed), suggest: (err, typed) => withPathSuggestions(err, ctx, typed) };
}

/** A not_found error about a path, with the closest indexed paths as suggestions ("Did you mean …?"). */
function withPathSuggestions(err: IndxError, ctx: Pick<OpContext, "index">, typed: string): IndxError {
  if (err.code !== "not_found") return err;
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

function indexedPaths(ctx: Pick<OpContext, "index">): string[] | null {
  try {
    return ctx.index.files.paths();
  } catch {
    return null; // no index yet: nothing to suggest from
  }
}

export function fileExists(ctx: Pick<OpContext, "vault">, typed: string): boolean {
  try {
    return existsSync(ctx.vault.abs(ctx.vault.safePath(typed)));
  } catch {
    return false;
  }
}
