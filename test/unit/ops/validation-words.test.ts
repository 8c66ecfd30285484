import { describe, expect, test } from "bun:test";
import { IndxError } from "../../../src/core/errors.ts";
import { parseInput } from "../../../src/ops/validate.ts";
import { dailyNote } from "../../../src/periodic/ops.ts";

function refusal(raw: unknown): string {
  try {
    parseInput(dailyNote, raw);
  } catch (err) {
    if (err instanceof IndxError) return err.message;
    throw err;
  }
  throw new Error("accepted");
}

describe("validation messages name the rule the value broke", () => {
  test("a value of the right length that breaks a pattern is told the pattern, in words and as written", () => {
    const message = refusal({ date: "2026/01/05" });
    expect(message).toContain("YYYY-MM-DD");
    expect(message).toContain("^\\d{4}-\\d{2}-\\d{2}$");
    expect(message).not.toContain("at most 10 characters");
  });

  test("a value too long is still told the length", () => {
    expect(refusal({ date: "2026-01-05-extra" })).toContain("at most 10 characters");
  });
});
