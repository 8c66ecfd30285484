import { describe, expect, test } from "bun:test";
import { unifiedDiff } from "../../../src/writes/unified-diff.ts";

describe("unifiedDiff", () => {
  test("separate changes are separate hunks with two lines of context; line numbers count each side", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].join("\n");
    const after = ["a", "B", "c", "d", "e", "f", "g", "h", "i", "j", "k"].join("\n");
    expect(unifiedDiff(before, after)).toBe(["@@ -1,4 +1,4 @@", " a", "-b", "+B", " c", " d", "@@ -9,2 +9,3 @@", " i", " j", "+k"].join("\n"));
  });

  test("an insertion between kept lines is only added lines; CRLF texts diff as lines; equal texts give nothing", () => {
    expect(unifiedDiff("---\r\nx: 1\r\n---\r\n", "---\r\nx: 1\r\ny: 2\r\n---\r\n")).toBe(["@@ -1,4 +1,5 @@", " ---", " x: 1", "+y: 2", " ---", " "].join("\n"));
    expect(unifiedDiff("same\n", "same\n")).toBe("");
  });
});
