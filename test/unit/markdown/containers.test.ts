import { describe, expect, test } from "bun:test";
import { parseNote } from "../../../src/markdown/parse.ts";
import { scanBody } from "../../../src/markdown/scanner.ts";
import { bodyTags, headingTexts, rawLinks } from "./helpers.ts";

const fences = (text: string): number[] => scanBody(text, 0, 1).fences;
const blockIds = (text: string): [string, number][] => parseNote(text).blocks.map((b) => [b.id, b.line]);

// Cases found by test/unit/markdown/scanner-vs-mdast.test.ts, where the scanner read CommonMark wrongly.
describe("indented code wherever no paragraph is open (CommonMark)", () => {
  test("right after a heading, a thematic break or an HTML block, without a blank line", () => {
    expect(bodyTags("# H\n    #a\n---\n    #b\n<!-- c -->\n    #c\n<div>\n</div>\n\n    #d\ntext\n    #e")).toEqual(["e"]);
  });
  test("not as a lazy continuation of a quote's paragraph", () => expect(bodyTags("> quote\n    #lazy")).toEqual(["lazy"]));
});

describe("lists (CommonMark)", () => {
  test("a table's rows may be interrupted by any list", () => {
    expect(parseNote("| a |\n|---|\n| b |\n4. [ ] task").tasks.map((t) => t.line)).toEqual([4]);
  });
  test("an item may open with a fence, whose lines keep the item's indent", () => {
    const text = "- ```js\n  # code\n  ```\n# after\n> - ~~~\n>   # code\n> # quoted";
    expect(fences(text)).toEqual([1, 3, 5, 6]);
    expect(headingTexts(text)).toEqual(["after"]);
  });
  test("a line at the margin after an item holding a heading is not in the list", () => {
    expect(headingTexts("- # H\nTitle\n---")).toEqual(["Title"]);
  });
  test("an HTML block or a quote left of the items' content ends the list", () => {
    expect(fences("- a\n<div>\n</div>\n\n  ```\ncode\n  ```")).toEqual([5, 7]);
    expect(fences("- a\n> q\n\n  ```\ncode\n  ```")).toEqual([4, 6]);
  });
});

describe("block quotes (CommonMark)", () => {
  test("only one space after `>` belongs to the marker: the rest is the content's indent", () => {
    expect(bodyTags(">     #code\n\n> #text")).toEqual(["text"]);
  });
  test("a fence in a list item inside a quote ends with the item", () => {
    expect(fences("> - item\n>   ```\n> [[Link]] #tag\n> ```\n> code")).toEqual([2, 2, 4, 5]);
    expect(rawLinks("> - item\n>   ```\n> [[Link]] #tag\n> ```")).toEqual(["[[Link]]"]);
  });
  test("a fence left of a quoted list item's content closes the item", () => {
    expect(fences("> - item\n> ~~~\n> a\n> ~~~\n>    ~~~\n> - x\n> y")).toEqual([2, 4, 5, 7]);
  });
  test("a lazy continuation line is no setext heading and continues the paragraph's block id", () => {
    expect(headingTexts("> quote\ntext\n---")).toEqual([]);
    expect(blockIds("> quote ^a\nlazy text\n\n> quote ^b\n")).toEqual([["b", 4]]);
  });
  test("a heading or a deeper quote ends the paragraph before it", () => {
    expect(blockIds("> text ^a\n> # Heading\n\n> text ^b\n> > deeper")).toEqual([
      ["a", 1],
      ["b", 4],
    ]);
  });
});

describe("links (CommonMark)", () => {
  test("brackets that are no wikilink may open a Markdown link", () => {
    expect(rawLinks("see [[ ]](Target.md) and [[a [[b]]")).toEqual(["[[ ]](Target.md)", "[[b]]"]);
  });
});
