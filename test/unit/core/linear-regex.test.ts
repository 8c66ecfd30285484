import { describe, expect, test } from "bun:test";
import { compileLinear, linearPatternProblem } from "../../../src/ai/linear-regex.ts";
import { regexReplace, regexSplit, regexTest, unsupportedRegex } from "../../../src/bases/regex.ts";
import { compileLinearRegex, linearRegexError } from "../../../src/core/linear-regex.ts";

/** One linear-time core under both users: Bases regexes and the AI operations' caller patterns. */

describe("the shared core", () => {
  test("ECMAScript flags carry over: i, m, s", () => {
    expect(compileLinearRegex("abc", "i").test("xABCx")).toBe(true);
    expect(compileLinearRegex("^b$", "m").test("a\nb\nc")).toBe(true);
    expect(compileLinearRegex("a.b", "s").test("a\nb")).toBe(true);
    expect(compileLinearRegex("a.b").test("a\nb")).toBe(false);
  });

  test("lookbehind is RE2's option: on by default, off when asked; back-references never", () => {
    expect(linearRegexError("(?<=a)b")).toBeNull();
    expect(linearRegexError("(?<=a)b", "", { lookbehind: false })).not.toBeNull();
    expect(linearRegexError("^(\\w)\\1$")).not.toBeNull();
  });
});

describe("its two users keep their rules", () => {
  test("Bases accept lookbehind and match through the RE2 twin", () => {
    expect(unsupportedRegex("(?<=a)b", "")).toBeNull();
    expect(unsupportedRegex("(a)\\1", "")).toContain("linear time");
    expect(unsupportedRegex("a", "y")).toBe("the y flag is not supported");
    expect(regexTest(/(?<=a)b/, "ab")).toBe(true);
    expect(regexReplace("a-b-c", /-/g, "+")).toBe("a+b+c");
    expect(regexSplit("a1b22c", /\d+/, null)).toEqual(["a", "b", "c"]);
    // A backtracking shape over a long name answers (RE2 is linear in the text).
    expect(regexTest(/(a+)+$/, `${"a".repeat(5_000)}!`)).toBe(false);
  });

  test("caller patterns refuse lookbehind and lookahead, with the engine's reason", () => {
    expect(linearPatternProblem("(?<!x)y")).toContain("linear-time");
    expect(linearPatternProblem("^[a-z]+$")).toBeNull();
    expect(compileLinear("^(a+)+$").test(`${"a".repeat(5_000)}b`)).toBe(false);
  });
});
