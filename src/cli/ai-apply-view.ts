import { readFileSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { ArgsDef } from "citty";
import { FieldSpec } from "../ai/ops/metadata/fields.ts";
import { IndxError } from "../core/errors.ts";
import { colourDiffLine, type Style } from "./output.ts";

/** The flags of an AI command that may apply its suggestions, besides those generated from its schema. */
export const APPLY_ARGS: ArgsDef = {
  "if-match": { type: "string", description: "Apply to this note only at this etag: PATH=ETAG (repeatable).", valueHint: "path=etag" },
};

/** `--if-match PATH=ETAG`, repeated; a path may hold commas, so values are not split on them. */
export function ifMatchFromFlags(rawArgs: readonly string[]): Record<string, string> | undefined {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i] ?? "";
    const next = rawArgs[i + 1];
    if (a === "--if-match" && next !== undefined) {
      values.push(next);
      i++;
    } else if (a.startsWith("--if-match=")) values.push(a.slice("--if-match=".length));
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
    for (const l of p.diff.replace(/\n$/, "").split("\n")) lines.push(colourDiffLine(l, s));
  }
  for (const a of o.applied ?? []) lines.push(s.dim(`wrote ${a.path} (etag ${a.etag})`));
  for (const w of o.warnings) lines.push(s.dim(`warning: ${w.message}`));
  return lines;
}

/**
 * `--field key:type`, repeatable: `status:enum=idea|active`, `due:date`, `people:list`, and a
 * trailing `!` for a required field (`title:string!`). `--fields-file` takes the JSON list.
 */
export function fieldsFromFlags(flags: Record<string, unknown>, rawArgs: readonly string[]): FieldSpec[] | undefined {
  const file = flags["fields-file"];
  if (typeof file === "string" && file !== "") {
    let text: string;
    try {
      text = readFileSync(file === "-" ? 0 : file, "utf8");
    } catch {
      throw new IndxError("validation_failed", "--fields-file: the file could not be read.", { option: "--fields-file" });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new IndxError("validation_failed", "--fields-file must hold a JSON list of field specs.", { option: "--fields-file" });
    }
    return checkedSpecs(parsed, "--fields-file");
  }
  const specs: unknown[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i] ?? "";
    const next = rawArgs[i + 1];
    let value: string | null = null;
    if (a === "--field" && next !== undefined) {
      value = next;
      i++;
    } else if (a.startsWith("--field=")) value = a.slice("--field=".length);
    if (value === null) continue;
    const m = /^([^:]+):([a-z]+)(?:=([^!]*))?(!)?$/.exec(value);
    if (!m) throw new IndxError("validation_failed", "--field takes key:type (e.g. status:enum=idea|active, due:date, title:string!).", { option: "--field" });
    specs.push({ key: m[1], type: m[2], ...(m[3] ? { enum: m[3].split("|") } : {}), ...(m[4] ? { required: true } : {}) });
  }
  return specs.length ? checkedSpecs(specs, "--field") : undefined;
}

const FieldSpecs = Type.Array(FieldSpec);

function checkedSpecs(value: unknown, option: string): FieldSpec[] {
  if (Value.Check(FieldSpecs, value)) return value;
  const first = Value.Errors(FieldSpecs, value).First();
  throw new IndxError("validation_failed", `${option}: not a list of field specs${first ? ` (${first.path || "/"} ${first.message})` : ""}.`, { option });
}
