import { describe, expect, test } from "bun:test";
import { crlf, patch, patchError } from "./helpers.ts";

const op = (block_id: string, markdown: string) => ({ op: "replace_block" as const, block_id, markdown });

describe("replace_block", () => {
  test("a paragraph: all its lines, the id re-attached", () => {
    const t = "# H\nfirst line\nsecond line ^p1\n\nafter\n";
    expect(patch(t, op("p1", "new text"))).toBe("# H\nnew text ^p1\n\nafter\n");
    expect(patch(t, op("^P1", "a\nb"))).toBe("# H\na\nb ^p1\n\nafter\n"); // case-insensitive, id kept as written
  });
  test("new markdown that already ends with the id is used as is", () => {
    expect(patch("x ^abc\n", op("abc", "y ^ABC"))).toBe("y ^ABC\n");
  });
  test("a list item: its own lines only (nested items stay)", () => {
    const t = "- one\n- two\n  continued ^li\n  - child\n- three\n";
    expect(patch(t, op("li", "- 2"))).toBe("- one\n- 2 ^li\n  - child\n- three\n");
  });
  test("a nested list item", () => {
    const t = "1. a\n   - b ^deep\n   - c\n2. d\n";
    expect(patch(t, op("deep", "   - [x] B"))).toBe("1. a\n   - [x] B ^deep\n   - c\n2. d\n");
  });
  test("a detached id after a table: the table is replaced, the id line stays", () => {
    const t = "text\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n^tbl\n\nmore\n";
    expect(patch(t, op("tbl", "| x |\n| - |"))).toBe("text\n\n| x |\n| - |\n\n^tbl\n\nmore\n");
    expect(patch(t, op("tbl", "| x |\n| - |\n\n^tbl"))).toBe("text\n\n| x |\n| - |\n\n^tbl\n\nmore\n");
  });
  test("a detached id after a loose list takes the whole list", () => {
    const t = "# H\n- a\n\n- b\n  more\n\n^lst\n";
    expect(patch(t, op("lst", "- z"))).toBe("# H\n- z\n\n^lst\n");
  });
  test("a list with another bullet is another list: the detached id names only the last one", () => {
    const t = "- a\n\n* b\n* c\n\n^lst\n";
    expect(patch(t, op("lst", "* z"))).toBe("- a\n\n* z\n\n^lst\n");
    const ordered = "1. a\n\n2. b\n   more\n\n   c\n\n^o\n";
    expect(patch(ordered, op("o", "1. z"))).toBe("1. z\n\n^o\n");
  });
  test("a detached id after a fenced code block with blank lines inside", () => {
    const t = "p\n\n```\na\n\nb\n```\n\n^code\n";
    expect(patch(t, op("code", "```\nc\n```"))).toBe("p\n\n```\nc\n```\n\n^code\n");
  });
  test("an id inside a callout names the run of quote lines", () => {
    const t = "x\n\n> [!note] T\n> body ^cal\n\ny\n";
    expect(patch(t, op("cal", "> [!tip] U\n> new"))).toBe("x\n\n> [!tip] U\n> new ^cal\n\ny\n");
  });
  test("a paragraph right under a heading or a thematic break starts after it", () => {
    expect(patch("# H\ntext ^a\n", op("a", "t"))).toBe("# H\nt ^a\n");
    expect(patch("***\ntext ^a\n", op("a", "t"))).toBe("***\nt ^a\n");
    expect(patch("```\ncode\n```\ntext ^a\n", op("a", "t"))).toBe("```\ncode\n```\nt ^a\n");
  });
  test("CRLF and a missing final newline", () => {
    expect(patch(crlf("a\n\nb ^x\n"), op("x", "c\nd"))).toBe(crlf("a\n\nc\nd ^x\n"));
    expect(patch("a\n\nb ^x", op("x", "c"))).toBe("a\n\nc ^x");
  });
  test("ids in code are not block ids; unknown and duplicate ids fail", () => {
    expect(patchError("```\nx ^id\n```\n", op("id", "y")).code).toBe("patch_target_not_found");
    const dup = patchError("a ^d\n\nb ^D\n", op("d", "y"));
    expect(dup.code).toBe("patch_target_ambiguous");
    expect(dup.details?.candidates).toEqual([
      { block_id: "d", line: 1 },
      { block_id: "D", line: 3 },
    ]);
  });
  test("bad ids and empty markdown are validation errors", () => {
    expect(patchError("a ^x\n", op("bad id", "y")).code).toBe("validation_failed");
    expect(patchError("a ^x\n", op("x", " \n")).code).toBe("validation_failed");
  });
});
