import type { TSchema } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { didYouMean } from "../core/suggest.ts";
import type { AnyOperation } from "../ops/define.ts";

/** Fields `--json a,b` may name for an operation: its output's own fields and those of its list rows. */
export function outputFields(op: AnyOperation): { top: Set<string>; rows: Set<string> } {
  const props: Record<string, TSchema> = op.output.properties;
  const rows = new Set<string>();
  for (const s of Object.values(props)) {
    const itemProps = s.type === "array" ? (s.items?.properties as Record<string, TSchema> | undefined) : undefined;
    for (const k of Object.keys(itemProps ?? {})) rows.add(k);
  }
  return { top: new Set(Object.keys(props)), rows };
}

/**
 * gh's `--json a,b`: the named fields of the result, or, when they are fields of its list rows
 * (search hits, notes, tags…), those fields of each row as a JSON array. An unknown name is
 * refused with the closest known ones.
 */
export function selectFields(data: unknown, fields: readonly string[], known: { top: Set<string>; rows: Set<string> }): unknown {
  const pick = (o: Record<string, unknown>) => Object.fromEntries(fields.filter((f) => f in o).map((f) => [f, o[f]]));
  if (fields.every((f) => known.top.has(f))) return pick(data as Record<string, unknown>);
  if (fields.every((f) => known.rows.has(f))) {
    const list = Object.values(data as Record<string, unknown>).find((v) => Array.isArray(v) && v.length > 0 && typeof v[0] === "object") as
      | Record<string, unknown>[]
      | undefined;
    return (list ?? []).map(pick);
  }
  const all = [...known.top, ...known.rows];
  const unknown = fields.find((f) => !known.top.has(f) && !known.rows.has(f));
  if (unknown)
    throw new IndxError("validation_failed", `--json: no field ${unknown}.${didYouMean(unknown, all)} Fields: ${[...new Set(all)].sort().join(", ")}.`, {
      option: "--json",
    });
  throw new IndxError("validation_failed", "--json: name fields of the result or fields of its rows, not both.", { option: "--json" });
}

let requested: string[] | null = null;

/** The fields `--json a,b` asked for in this process (set by main before the command runs). */
export function requestedFields(): string[] | null {
  return requested;
}

export function requestFields(fields: string[] | null): void {
  requested = fields;
}

/** `--json a,b` for a command that is no operation (token, config): the fields of its object, or of each row of its list. */
export function selectPlainFields(data: unknown): unknown {
  const fields = requested;
  if (!fields) return data;
  const first = Array.isArray(data) ? data[0] : data;
  const keys = new Set(first && typeof first === "object" ? Object.keys(first) : []);
  if (Array.isArray(data)) return selectFields({ rows: data }, fields, { top: new Set(["rows"]), rows: keys });
  return selectFields(data, fields, { top: keys, rows: new Set() });
}
