import { describe, expect, test } from "bun:test";
import { parseNote } from "../../../src/markdown/parse.ts";
import { scanBody } from "../../../src/markdown/scanner.ts";
import { headingTexts } from "./helpers.ts";

/** Fenced code blocks as [firstLine, lastLine] pairs. */
const fences = (text: string): number[][] => {
  const flat = scanBody(text, 0, 1).fences;
  const out: number[][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
};

// Cases found by test/unit/markdown/scanner-vs-mdast.test.ts, where the scanner read CommonMark wrongly.
describe("fenced code in containers (CommonMark, as Obsidian reads it)", () => {
  test("a fence indented past its list item's content stays in the item while its lines keep the item's indent", () => {
    const text = ["- item", "", "     ```", "  # code, not a heading", "  ```", "# after"].join("\n");
    expect(fences(text)).toEqual([[3, 5]]);
    expect(headingTexts(text)).toEqual(["after"]);
  });
  test("an unclosed fence its list item closes ends on its last non-blank line", () => {
    expect(fences(["- item", "", "  ```", "  code", "", "", "after"].join("\n"))).toEqual([[3, 4]]);
  });
  test("an unclosed fence its quote closes ends on its last non-blank line", () => {
    expect(fences(["> ```", "> code", ">", "", "after"].join("\n"))).toEqual([[1, 2]]);
  });
  test("a fence indented less than its list item's content is not in the list", () => {
    const text = ["1. item", "", "  ```", "  x", "1. # in the fence", "  ```", "# after"].join("\n");
    expect(fences(text)).toEqual([[3, 6]]);
    expect(headingTexts(text)).toEqual(["after"]);
  });
  test("a fence in a nested item keeps the nested item's indent", () => {
    expect(fences(["- a", "  - b", "", "    ```", "    x", "  ```", "  y", "    ```"].join("\n"))).toEqual([
      [4, 5],
      [6, 8],
    ]);
  });
  test("the blank line before the line that closes a fence's list item ends the list", () => {
    expect(headingTexts(["- item", "", "  ```", "  code", "", "Title", "---"].join("\n"))).toEqual(["Title"]);
  });
  test("backticks four columns past a list item's content are indented code, not a fence", () => {
    expect(fences(["- a", "", "      ```", "      # x", "", "- b"].join("\n"))).toEqual([]);
  });
  test("after a blank line, a line left of every open item's content ends the list", () => {
    expect(fences(["- a", "", "<div>", "</div>", "", "  ~~~", "code", "  ~~~"].join("\n"))).toEqual([[6, 8]]);
  });
  test("indented code four columns past a list item's content, and right after a list", () => {
    const text = ["1. a", "  2. b", "", "    ```", "    # code", "     ``` x", "# after"].join("\n");
    expect(fences(text)).toEqual([]);
    expect(headingTexts(text)).toEqual(["after"]);
  });
  test("an unclosed fence at the end of the note ends on its last non-blank line", () => {
    expect(fences("```\ncode\n\n\n")).toEqual([[1, 2]]);
    expect(fences("```\n\n")).toEqual([[1, 1]]);
  });
});

describe("a list inside a paragraph (CommonMark)", () => {
  test("an ordered item not starting at 1 continues the paragraph: no task, no list", () => {
    const p = parseNote("text\n4. [ ] not a task\n\n    ```\n    code");
    expect(p.tasks).toEqual([]);
    expect(fences("text\n4. [ ] not a task\n\n    ```\n    code")).toEqual([]);
  });
  test("a bullet item and an item numbered 1 start a list inside a paragraph", () => {
    expect(parseNote("text\n- [ ] a\n\ntext\n1. [x] b").tasks.map((t) => t.line)).toEqual([2, 5]);
  });
  test("an empty item continues the paragraph", () => {
    expect(parseNote("Title\n-\n").headings.map((h) => h.text)).toEqual(["Title"]);
  });
});

describe("an HTML comment line ends the paragraph before it (CommonMark HTML block, kind 2)", () => {
  test("it is not part of a setext heading", () => {
    const p = parseNote("<!-- note -->\nTitle\n---\n");
    expect(p.headings.map((h) => [h.level, h.text, h.line])).toEqual([[2, "Title", 2]]);
  });
  test("a paragraph before it is not continued through it", () => {
    expect(headingTexts("para\n<!-- c -->\nTitle\n===")).toEqual(["Title"]);
  });
  test("a block id before it ends its paragraph", () => {
    expect(parseNote("text ^id1\n<!-- c -->\nmore").blocks).toEqual([{ id: "id1", line: 1 }]);
  });
});
