import { describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { OPERATIONS } from "../../../src/app/registry.ts";
import { IndxError } from "../../../src/core/errors.ts";
import { parseInput } from "../../../src/ops/validate.ts";
import { vaultSearch } from "../../../src/search/ops.ts";

type Schema = TSchema & Record<string, unknown>;

/**
 * Every place in an input schema whose size a caller controls without bound: strings without
 * maxLength, arrays without maxItems, maps without maxProperties. Free-form values
 * (Type.Unknown) are bounded by the input's nesting and the request's size instead.
 */
function unbounded(schema: Schema, at: string): string[] {
  if (schema.const !== undefined || schema.enum !== undefined) return [];
  const found: string[] = [];
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) for (const part of parts) found.push(...unbounded(part as Schema, at));
  }
  switch (schema.type) {
    case "string":
      if (schema.maxLength === undefined) found.push(`${at}: string without maxLength`);
      break;
    case "array":
      if (schema.maxItems === undefined) found.push(`${at}: array without maxItems`);
      found.push(...unbounded(schema.items as Schema, `${at}[]`));
      break;
    case "object": {
      const map = schema.patternProperties as Record<string, Schema> | undefined;
      if (map && schema.maxProperties === undefined) found.push(`${at}: map without maxProperties`);
      for (const value of Object.values(map ?? {})) found.push(...unbounded(value, `${at}{}`));
      for (const [name, value] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}))
        found.push(...unbounded(value, `${at}.${name}`));
      break;
    }
  }
  return found;
}

describe("operation inputs are bounded", () => {
  test("every string, list and map in every operation's input has a limit", () => {
    const found = OPERATIONS.flatMap((op) => unbounded(op.input as Schema, op.name));
    expect([...new Set(found)]).toEqual([]);
  });

  test("the validator refuses 10,000 tag filters with a typed error, quickly", () => {
    const tag = Array.from({ length: 10_000 }, (_, i) => `tag${i}`);
    const started = performance.now();
    let caught: unknown;
    try {
      parseInput(vaultSearch, { q: "x", tag });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(IndxError);
    expect((caught as IndxError).code).toBe("validation_failed");
    expect(performance.now() - started).toBeLessThan(500);
  });

  test("input nested deeper than the limit is refused before it is copied or walked", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 50_000; i++) deep = [deep];
    let caught: unknown;
    try {
      parseInput(vaultSearch, { q: "x", tag: deep });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(IndxError);
    expect((caught as IndxError).code).toBe("validation_failed");
  });
});
