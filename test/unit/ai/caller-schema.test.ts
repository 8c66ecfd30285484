import { describe, expect, test } from "bun:test";
import { CallerSchema } from "../../../src/ai/ops/extract/caller-schema.ts";
import { SCHEMA_LIMITS } from "../../../src/ai/ops/extract/schema-subset.ts";
import type { IndxError } from "../../../src/core/errors.ts";

/** ai_extract's caller schema: the 2020-12 subset it takes, checked before any model call, and the checks of extracted data. */

const ACTION_ITEMS = {
  type: "array",
  items: {
    type: "object",
    required: ["task", "owner"],
    properties: {
      task: { type: "string", minLength: 3 },
      owner: { type: "string" },
      due_date: { type: "string", format: "date" },
      blocked_by: { type: "array", items: { type: "string" } },
    },
    additionalProperties: false,
  },
};

function refusal(schema: unknown): IndxError {
  try {
    CallerSchema.check(schema).dispose();
  } catch (e) {
    return e as IndxError;
  }
  throw new Error("the schema was accepted");
}

const errorsOf = (schema: unknown) => (refusal(schema).details as { errors: { path: string; message: string }[] }).errors;

describe("CallerSchema.check", () => {
  test("accepts the action-items schema and checks records and items against it", () => {
    const s = CallerSchema.check(ACTION_ITEMS);
    try {
      expect(s.errors([{ task: "Ship the release", owner: "Ana", due_date: "2026-05-01" }])).toEqual([]);
      expect(s.errors([{ task: "Go", owner: "Ana", due_date: "yesterday", extra: 1 }])).toEqual([
        { path: "/0", message: 'must NOT have additional properties: "extra"' },
        { path: "/0/task", message: "must NOT have fewer than 3 characters" },
        { path: "/0/due_date", message: 'must match format "date"' },
      ]);
      expect(s.checksItems).toBe(true);
      expect(s.itemErrors({ task: "Ship it", owner: "Bo" })).toEqual([]);
      expect(s.itemErrors({ task: "Ship it" })).toEqual([{ path: "/", message: "must have required property 'owner'" }]);
      expect(s.itemErrors({ task: "Ship it", owner: "Bo", due_date: "2026-13-45" })).toEqual([{ path: "/due_date", message: 'must match format "date"' }]);
    } finally {
      s.dispose();
    }
  });

  test("local $defs references resolve, in the whole schema and in its items", () => {
    const s = CallerSchema.check({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $defs: { person: { type: "object", required: ["name"], properties: { name: { type: "string" }, email: { type: "string", format: "email" } } } },
      type: "array",
      items: { $ref: "#/$defs/person" },
      maxItems: 2,
    });
    try {
      expect(s.errors([{ name: "Ana", email: "ana@example.com" }])).toEqual([]);
      expect(s.itemErrors({ name: "Ana", email: "not an address" })).toEqual([{ path: "/email", message: 'must match format "email"' }]);
      expect(s.errors([{ name: "a" }, { name: "b" }, { name: "c" }])).toEqual([{ path: "/", message: "must NOT have more than 2 items" }]);
      expect(s.body).toEqual({ type: "array", items: { $ref: "#/$defs/person" }, maxItems: 2 });
    } finally {
      s.dispose();
    }
  });

  test("an object schema is checked whole: it has no items to drop one by one", () => {
    const s = CallerSchema.check({ type: "object", properties: { at: { type: "string", format: "date-time" } }, required: ["at"] });
    try {
      expect(s.checksItems).toBe(false);
      expect(s.errors({ at: "2026-05-01T10:00:00Z" })).toEqual([]);
      expect(s.errors({ at: "tomorrow morning" })).toEqual([{ path: "/at", message: 'must match format "date-time"' }]);
    } finally {
      s.dispose();
    }
  });

  test("what is outside the subset is ai_schema_invalid with a path for each problem", () => {
    const e = refusal({
      type: "object",
      properties: {
        n: { type: "integer", exclusiveMinimum: 0 },
        tags: { type: "array", prefixItems: [{ type: "string" }] },
        site: { type: "string", format: "hostname" },
        code: { type: "string", pattern: "([a-z" },
        who: { $ref: "https://example.com/person.json" },
        boss: { $ref: "#/$defs/missing" },
        inner: { $defs: { x: { type: "string" } } },
      },
    });
    expect(e.code).toBe("ai_schema_invalid");
    const paths = (e.details as { errors: { path: string }[] }).errors.map((x) => x.path);
    expect(paths).toEqual([
      "/properties/n/exclusiveMinimum",
      "/properties/tags/prefixItems",
      "/properties/site/format",
      "/properties/code/pattern",
      "/properties/who/$ref",
      "/properties/boss/$ref",
      "/properties/inner/$defs",
    ]);
    expect(e.message).toContain("exclusiveMinimum");
  });

  test("keyword values of the wrong type are found by the 2020-12 meta-schema; another draft is refused", () => {
    expect(errorsOf({ type: "object", properties: { a: { type: "string", minLength: "three" } } })).toContainEqual({
      path: "/properties/a/minLength",
      message: "must be integer",
    });
    expect(errorsOf({ type: "thing" }).map((x) => x.path)).toContain("/type");
    expect(errorsOf({ $schema: "http://json-schema.org/draft-07/schema#", type: "string" })).toEqual([
      { path: "/$schema", message: 'Only JSON Schema 2020-12 ("https://json-schema.org/draft/2020-12/schema") is supported.' },
    ]);
    expect(errorsOf([{ type: "string" }])).toEqual([{ path: "", message: "The schema must be a JSON object." }]);
  });

  test("size, nesting and enum length are bounded", () => {
    const big = { type: "string", description: "x".repeat(SCHEMA_LIMITS.bytes) };
    expect(errorsOf(big)[0]!.message).toContain(`at most ${SCHEMA_LIMITS.bytes}`);
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i <= SCHEMA_LIMITS.depth; i++) deep = { type: "array", items: deep };
    expect(errorsOf(deep)[0]!.message).toContain(`deeper than ${SCHEMA_LIMITS.depth}`);
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: SCHEMA_LIMITS.subschemas + 1 }, (_, i) => [`k${i}`, true])) };
    expect(errorsOf(wide)[0]!.message).toContain(`more than ${SCHEMA_LIMITS.subschemas} subschemas`);
    expect(errorsOf({ enum: Array.from({ length: SCHEMA_LIMITS.enumValues + 1 }, (_, i) => i) })[0]!.path).toBe("/enum");
  });
});

describe("caller patterns run in a linear-time engine", () => {
  test("a catastrophic-backtracking pattern over 20 model values is checked at once, with the right verdicts", () => {
    const schema = CallerSchema.check({ type: "array", items: { type: "string", pattern: "^(a+)+$" } });
    // 2^40 backtracking steps each in a backtracking engine: this would not finish.
    const values = [...Array.from({ length: 19 }, () => `${"a".repeat(40)}b`), "a".repeat(40)];
    const errors = values.map((v) => schema.itemErrors(v));
    expect(errors.slice(0, 19).every((e) => e.length === 1 && /pattern/.test(e[0]!.message))).toBe(true);
    expect(errors[19]).toEqual([]);
    expect(schema.errors(values)).not.toEqual([]);
    schema.dispose();
  });

  test("ECMAScript syntax is understood: escapes, classes, Unicode properties, named groups", () => {
    const schema = CallerSchema.check({
      type: "object",
      properties: {
        date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
        word: { type: "string", pattern: "^\\p{L}+$" },
        cafe: { type: "string", pattern: "caf\\u00e9" },
        year: { type: "string", pattern: "(?<year>\\d{4})" },
      },
    });
    expect(schema.errors({ date: "2026-11-27", word: "Ünïcode", cafe: "un café", year: "in 2026" })).toEqual([]);
    expect(schema.errors({ date: "27/11/2026" }).map((e) => e.path)).toEqual(["/date"]);
    expect(schema.errors({ word: "two words" }).map((e) => e.path)).toEqual(["/word"]);
    schema.dispose();
  });

  test("what the linear-time engine cannot do (backreferences, lookaround) is refused before any model call", () => {
    for (const pattern of ["^(\\w)\\1$", "^(?=a)a", "(?<!x)y", "(?!b)a"]) {
      const err = refusal({ type: "string", pattern });
      expect(err.code).toBe("ai_schema_invalid");
      expect((err.details as { errors: { path: string; message: string }[] }).errors[0]).toMatchObject({ path: "/pattern" });
      expect((err.details as { errors: { message: string }[] }).errors[0]!.message).toContain("linear-time");
    }
  });
});
