import type { ArgsDef } from "citty";
import { IndxError } from "../core/errors.ts";
import type { Style } from "./output.ts";

/** The flags of an AI command that may apply its suggestions, besides those generated from its schema. */
export const APPLY_ARGS: ArgsDef = {
  "if-match": { type: "string", description: "Apply to this note only at this etag: PATH=ETAG (repeatable).", valueHint: "path=etag" },
};

/** `--if-match PATH=ETAG`, repeated; a path may hold commas, so values are not split on them. */
export function ifMatchFromFlags(rawArgs: readonly string[]): Record<string, string> | undefined {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    if (a === "--if-match" && i + 1 < rawArgs.length) values.push(rawArgs[++i]!);
    else if (a.startsWith("--if-match=")) values.push(a.slice("--if-match=".length));
  }
  if (values.length === 0) return undefined;
  const map: Record<string, string> = {};
  for (const v of values) {
    const eq = v.lastIndexOf("=");
    if (eq <= 0 || eq === v.length - 1) throw new IndxError("validation_failed", "--if-match takes PATH=ETAG.", { option: "--if-match" });
    map[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return map;
}

/** --dry-run means "show what --apply would write", so it implies --apply. */
export function applyFromFlags(flags: Record<string, unknown>, rawArgs: readonly string[]) {
  const ifMatch = ifMatchFromFlags(rawArgs);
  return { ...(flags["dry-run"] === true ? { apply: true } : {}), ...(ifMatch ? { if_match: ifMatch } : {}) };
}

interface SettledView {
  applied?: readonly { path: string; etag: string }[];
  planned?: readonly { path: string; diff: string }[];
  warnings: readonly { message: string }[];
}

/** A dry run as a unified diff per note (coloured on a terminal), or what was written; then the warnings. */
export function settledLines(o: SettledView, s: Style): string[] {
  const lines: string[] = [];
  for (const p of o.planned ?? []) {
    lines.push(s.bold(`--- ${p.path}`), s.bold(`+++ ${p.path}`));
    for (const l of p.diff.split("\n")) lines.push(l.startsWith("@@") ? s.dim(l) : l.startsWith("-") ? s.red(l) : l.startsWith("+") ? s.green(l) : l);
  }
  for (const a of o.applied ?? []) lines.push(s.dim(`wrote ${a.path} (etag ${a.etag})`));
  for (const w of o.warnings) lines.push(s.dim(`warning: ${w.message}`));
  return lines;
}
