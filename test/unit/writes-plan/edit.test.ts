import { describe, expect, test } from "bun:test";
import { etagOf } from "../../../src/core/hash.ts";
import { applySplices, fileEdit, lineChanges } from "../../../src/writes/edit.ts";

describe("FileEdit helpers", () => {
  test("lineChanges pairs lines one to one, and handles a different line count", () => {
    expect(lineChanges("a\nb\r\nc\n", "a\nB\r\nc\n")).toEqual([{ line: 2, before: "b", after: "B" }]);
    expect(lineChanges("a\nb\nc", "a\nx\ny\nc")).toEqual([
      { line: 2, before: "b", after: "x" },
      { line: 3, before: "", after: "y" },
    ]);
    expect(lineChanges("same", "same")).toEqual([]);
  });

  test("applySplices keeps every byte outside the splices; fileEdit is null for no change", () => {
    expect(
      applySplices("0123456789", [
        { start: 7, end: 8, text: "x" },
        { start: 1, end: 3, text: "" },
      ]),
    ).toBe("03456x89");
    expect(() =>
      applySplices("abc", [
        { start: 0, end: 2, text: "" },
        { start: 1, end: 3, text: "" },
      ]),
    ).toThrow();
    expect(fileEdit("a.md", "t", "t")).toBeNull();
    expect(fileEdit("a.md", "t\n", "u\n")).toEqual({ path: "a.md", etag: etagOf("t\n"), text: "u\n", changes: [{ line: 1, before: "t", after: "u" }] });
  });
});
