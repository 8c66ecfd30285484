import { describe, expect, test } from "bun:test";
import { headingKey, stripHeading, stripHeadingForLink } from "../../../src/markdown/headings.ts";
import { parseNote } from "../../../src/markdown/parse.ts";
import { headingTexts } from "./helpers.ts";

const levels = (text: string) => parseNote(text).headings.map((h) => [h.level, h.text]);

describe("ATX headings (docs/obsidian.md)", () => {
  test("levels 1–6, raw text kept", () => {
    expect(levels("# A\n## **Bold**\n###### Six\n####### Seven")).toEqual([
      [1, "A"],
      [2, "**Bold**"],
      [6, "Six"],
    ]);
  });
  test("#Heading (no space) is not a heading", () => expect(headingTexts("#Heading")).toEqual([]));
  test("closing #s removed only when preceded by a space", () => {
    expect(headingTexts("# foo ##\n## bar#\n### baz \\#\n# #")).toEqual(["foo", "bar#", "baz \\#", ""]);
  });
  test("up to 3 spaces of indent; 4 is not a heading", () => {
    expect(headingTexts("   # three\n\n    # four")).toEqual(["three"]);
  });
  test("heading with only # and trailing spaces", () => expect(levels("##   \n")).toEqual([[2, ""]]));
  test("tab after the marker", () => expect(headingTexts("#\tTabbed")).toEqual(["Tabbed"]));
  test("not inside fenced code", () => {
    expect(headingTexts("```\n# x\n```\n~~~~\n# y\n~~~\n# still code\n~~~~\n# real")).toEqual(["real"]);
  });
  test("an unclosed fence runs to EOF", () => expect(headingTexts("```js\n# x\n\n# y")).toEqual([]));
  test("a closing fence must be at least as long and the same char", () => {
    expect(headingTexts("````\n```\n# in\n~~~~\n````\n# out")).toEqual(["out"]);
  });
  test("backtick fence info string may not contain backticks (then it is inline code)", () => {
    expect(headingTexts("``` a`b\n# heading")).toEqual(["heading"]);
  });
  test("not inside %% comments or html comments", () => {
    expect(headingTexts("%%\n# hidden\n%%\n<!--\n# hidden2\n-->\n# shown")).toEqual(["shown"]);
  });
  test("line, offset and setext flag", () => {
    const h = parseNote("intro\n\n## Two\n").headings[0]!;
    expect(h).toEqual({ level: 2, text: "Two", line: 3, offset: 7, setext: false });
  });
});

describe("setext headings (docs/obsidian.md)", () => {
  test("=== is H1, --- is H2", () => {
    expect(levels("Title\n===\n\nSub\n---\n")).toEqual([
      [1, "Title"],
      [2, "Sub"],
    ]);
  });
  test("underline may be indented up to 3 spaces and have trailing spaces", () => {
    expect(levels("A\n   ===   \n\nB\n    ---")).toEqual([[1, "A"]]);
  });
  test("--- after a blank line is a thematic break", () => {
    expect(headingTexts("Para\n\n---\ntext")).toEqual([]);
  });
  test("--- after a list item is a thematic break", () => expect(headingTexts("- item\n---")).toEqual([]));
  test("--- after a table row is not a setext underline", () => {
    expect(headingTexts("| a | b |\n| - | - |\n| 1 | 2 |\n---")).toEqual([]);
  });
  test("=== with nothing above is text", () => expect(headingTexts("===\n")).toEqual([]));
  test("--- after a heading is a rule", () => expect(levels("# H\n---")).toEqual([[1, "H"]]));
  test("multi-line paragraph becomes one heading starting at its first line", () => {
    const p = parseNote("x\n\nLine one\nline two\n===\n");
    expect(p.headings).toEqual([{ level: 1, text: "Line one\nline two", line: 3, offset: 3, setext: true }]);
  });
  test("not inside a fence", () => expect(headingTexts("```\nTitle\n===\n```")).toEqual([]));
  test("frontmatter --- does not become a setext underline", () => {
    expect(headingTexts("---\na: 1\n---\nText")).toEqual([]);
  });
});

describe("heading normalisation", () => {
  test("stripHeading matches Obsidian's (docs/obsidian.md)", () => {
    expect(stripHeading('foo!"#$%&()*+,.:;<=>?@^`{|}~/[]\\\r\nbar')).toBe("foo bar");
    expect(stripHeading("Step 1: Setup")).toBe("Step 1 Setup");
    expect(stripHeading("**Bold**")).toBe("Bold");
    expect(stripHeading("my-heading_x 'q'")).toBe("my-heading_x 'q'");
  });
  test("headingKey is case-insensitive", () => {
    expect(headingKey("Q & A")).toBe(headingKey("q&a"));
    expect(headingKey("## Step 1: Setup")).toBe("step 1 setup");
    expect(headingKey("My heading")).not.toBe(headingKey("my-heading"));
  });
  test("stripHeadingForLink matches Obsidian's (docs/obsidian.md)", () => {
    expect(stripHeadingForLink("foo:#|^\\\r\n%%[[]]bar")).toBe("foo bar");
    expect(stripHeadingForLink("Step 1: Setup")).toBe("Step 1 Setup");
    expect(stripHeadingForLink("a (b) [c]")).toBe("a (b) [c]");
  });
});
