import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { IndxError } from "../../../core/errors.ts";
import { INPUT_LIMITS } from "../../../ops/schemas.ts";
import { ModelCitation } from "../../citations.ts";
import { compileLinear, type LinearPattern, linearPatternProblem } from "../../linear-regex.ts";

const SCALAR_TYPES = [
  Type.Literal("string"),
  Type.Literal("number"),
  Type.Literal("boolean"),
  Type.Literal("date"),
  Type.Literal("datetime"),
  Type.Literal("enum"),
] as const;

const FieldType = Type.Union([...SCALAR_TYPES, Type.Literal("list")], {
  description: "list: of list_item_type; enum: one of enum.",
});

export const FieldSpec = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, pattern: "^[^\\r\\n]+$", description: "Frontmatter key." }),
    type: FieldType,
    description: Type.Optional(Type.String({ maxLength: 500, description: "Hint for the model." })),
    required: Type.Optional(Type.Boolean({ description: "Warn when none is found." })),
    enum: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: 100 })),
    list_item_type: Type.Optional(Type.Union([...SCALAR_TYPES])),
    pattern: Type.Optional(Type.String({ maxLength: 500, description: "Regex string values must match." })),
    min: Type.Optional(Type.Number({ description: "Min number or list length." })),
    max: Type.Optional(Type.Number({ description: "Max number or list length." })),
    default: Type.Optional(Type.Unknown({ description: "Value when none is found." })),
  },
  { additionalProperties: false },
);
export type FieldSpec = Static<typeof FieldSpec>;
type ScalarType = Exclude<FieldSpec["type"], "list">;

/** Keys Obsidian reads as lists: written as a list whatever the field's type says. */
const LIST_KEYS = new Set(["tags", "aliases", "cssclasses"]);
export const isListKey = (spec: FieldSpec) => spec.type === "list" || LIST_KEYS.has(spec.key.toLowerCase());

/** The caller's field specs, checked before any model call: one key once, an enum where one is needed, a pattern that compiles. */
export function checkFieldSpecs(specs: readonly FieldSpec[]): void {
  const seen = new Set<string>();
  specs.forEach((spec, i) => {
    const field = `fields[${i}]`;
    if (seen.has(spec.key)) throw new IndxError("validation_failed", `${field}: the key ${spec.key} is asked for twice.`, { field });
    seen.add(spec.key);
    const itemType = spec.type === "list" ? (spec.list_item_type ?? "string") : spec.type;
    if (itemType === "enum" && !spec.enum?.length) throw new IndxError("validation_failed", `${field}: an enum field needs \`enum\`.`, { field });
    if (spec.pattern !== undefined) compile(spec.pattern, field);
  });
}

/** A field's pattern, for matching what the model wrote: in the linear-time engine (src/ai/linear-regex.ts), never a backtracking one. */
function compile(pattern: string, field = "pattern"): LinearPattern {
  try {
    new RegExp(pattern, "u");
  } catch {
    throw new IndxError("validation_failed", `${field}: the pattern is not a valid regular expression.`, { field });
  }
  const problem = linearPatternProblem(pattern);
  if (problem) throw new IndxError("validation_failed", `${field}: ${problem}`, { field });
  return compileLinear(pattern);
}

function scalarSchema(type: ScalarType, spec: FieldSpec): TSchema {
  switch (type) {
    case "number":
      return Type.Number({ ...(spec.min !== undefined ? { minimum: spec.min } : {}), ...(spec.max !== undefined ? { maximum: spec.max } : {}) });
    case "boolean":
      return Type.Boolean();
    case "date":
      return Type.String({ format: "date", description: "YYYY-MM-DD" });
    case "datetime":
      return Type.String({ format: "date-time", description: "YYYY-MM-DDTHH:mm:ssZ" });
    case "enum":
      return Type.Union((spec.enum ?? []).map((v) => Type.Literal(v)));
    case "string":
      return Type.String();
  }
}

/** The JSON Schema of one field's value, as the model is asked for it (the pattern is not sent: providers support it unevenly). */
function valueSchema(spec: FieldSpec): TSchema {
  if (!isListKey(spec)) return scalarSchema(spec.type as ScalarType, spec);
  const bounds = {
    ...(spec.min !== undefined ? { minItems: Math.max(0, Math.floor(spec.min)) } : {}),
    ...(spec.max !== undefined ? { maxItems: Math.floor(spec.max) } : {}),
  };
  return Type.Array(scalarSchema(spec.list_item_type ?? "string", spec), bounds);
}

const Cited = Type.Array(ModelCitation, { maxItems: 20 });

/** The reply the model is asked for: each field's value in its type, or null. */
export function metadataReply(specs: readonly FieldSpec[]) {
  return Type.Object({
    fields: Type.Object(
      Object.fromEntries(
        specs.map((spec) => [
          spec.key,
          Type.Object({
            value: Type.Union([valueSchema(spec), Type.Null()]),
            confidence: Type.Number({ minimum: 0, maximum: 1 }),
            rationale: Type.String({ maxLength: 500 }),
            citations: Cited,
          }),
        ]),
      ),
    ),
  });
}

/** The reply as it is accepted: each value is then validated here, field by field. */
export const MetadataReplyAccepted = Type.Object({
  fields: Type.Record(
    Type.String(),
    Type.Object({
      value: Type.Optional(Type.Unknown()),
      confidence: Type.Optional(Type.Number()),
      rationale: Type.Optional(Type.String({ maxLength: 2_000 })),
      citations: Type.Optional(Type.Array(ModelCitation, { maxItems: 50 })),
    }),
  ),
});

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A model's value checked against its field, server-side: the type, enum by exact match, the
 * pattern, min/max, and dates strictly ISO 8601 (prose such as "yesterday" is refused, not
 * guessed). Returns the value as it is written (datetimes in UTC, list keys as lists) or why not.
 */
export function validateValue(spec: FieldSpec, value: unknown): { value: unknown } | { reason: string } {
  if (isListKey(spec)) {
    const items = Array.isArray(value) ? value : spec.type === "list" ? null : [value];
    if (items === null) return { reason: "not a list" };
    if (spec.min !== undefined && items.length < spec.min) return { reason: `fewer than ${spec.min} items` };
    if (spec.max !== undefined && items.length > spec.max) return { reason: `more than ${spec.max} items` };
    const out: unknown[] = [];
    for (const item of items) {
      const checked = validateScalar(spec.type === "list" ? (spec.list_item_type ?? "string") : (spec.type as ScalarType), spec, item, false);
      if ("reason" in checked) return { reason: `an item is ${checked.reason}` };
      out.push(checked.value);
    }
    return { value: out };
  }
  return validateScalar(spec.type as ScalarType, spec, value, true);
}

function validateScalar(type: ScalarType, spec: FieldSpec, value: unknown, bounded: boolean): { value: unknown } | { reason: string } {
  switch (type) {
    case "string":
      if (typeof value !== "string") return { reason: "not a string" };
      if (spec.pattern !== undefined && !compile(spec.pattern).test(value)) return { reason: `"${value.slice(0, 80)}" does not match the pattern` };
      return { value };
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return { reason: "not a number" };
      if (bounded && spec.min !== undefined && value < spec.min) return { reason: `${value} is under the minimum ${spec.min}` };
      if (bounded && spec.max !== undefined && value > spec.max) return { reason: `${value} is over the maximum ${spec.max}` };
      return { value };
    case "boolean":
      return typeof value === "boolean" ? { value } : { reason: "not a boolean" };
    case "enum":
      return typeof value === "string" && (spec.enum ?? []).includes(value)
        ? { value }
        : { reason: `${JSON.stringify(value)?.slice(0, 80)} is not one of the enum values` };
    case "date":
      return typeof value === "string" && isCalendarDate(DATE.exec(value))
        ? { value }
        : { reason: `${JSON.stringify(value)?.slice(0, 80)} is not an ISO date (YYYY-MM-DD)` };
    case "datetime": {
      const m = typeof value === "string" ? DATETIME.exec(value) : null;
      if (!m || !isCalendarDate(m) || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)
        return { reason: `${JSON.stringify(value)?.slice(0, 80)} is not an ISO date-time with a zone` };
      return { value: new Date(String(value)).toISOString().replace(/\.\d{3}Z$/, "Z") };
    }
  }
}

function isCalendarDate(m: RegExpExecArray | null): boolean {
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The field list after the passages: key, type and hints, one line each. */
export function fieldInstructions(specs: readonly FieldSpec[], language?: string): string {
  const lines = specs.map((s) => {
    const type = s.type === "list" ? `list of ${s.list_item_type ?? "string"}` : s.type;
    const hints = [s.enum ? `one of: ${s.enum.join(", ")}` : "", s.description ?? ""].filter(Boolean).join("; ");
    return `- ${s.key} (${type})${hints ? `: ${hints}` : ""}`;
  });
  return ["Fill these frontmatter fields:", ...lines, language ? `Write text values in the language with BCP 47 tag "${language}".` : ""]
    .filter(Boolean)
    .join("\n");
}

/** Bumped whenever the metadata prompt or reply shape changes, so an old cached reply is never served. */
export const METADATA_PROMPT_VERSION = "2026-11-24.metadata.1";
