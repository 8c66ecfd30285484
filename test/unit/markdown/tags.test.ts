import { describe, expect, test } from "bun:test";
import { parseNote } from "../../../src/markdown/parse.ts";
import { isTagChar, TAG_RE } from "../../../src/markdown/tags.ts";
import { bodyTags } from "./helpers.ts";

describe("body tags (docs/obsidian.md)", () => {
  const cases: [string, string[]][] = [
    ["#tag", ["tag"]],
    ["text #tag more", ["tag"]],
    ["word#tag", []],
    ["#1984", []],
    ["#y1984", ["y1984"]],
    ["#1984y", ["1984y"]],
    ["end #tag.", ["tag"]],
    ["#tag's", ["tag"]],
    ["#a,b", ["a"]],
    ["(#tag)", []],
    ["**#tag**", ["tag"]],
    ["*#tag*", ["tag"]],
    ["__#tag__", ["tag__"]], // `_` is a tag character, so the regex keeps it (emphasis is not resolved)
    ["[#tag](x)", ["tag"]],
    ["==#tag==", ["tag"]],
    ["| #a | #b |", ["a", "b"]],
    ["\\#tag", []],
    ["https://x.com/#frag", []],
    ["see https://x.com/?a=b#frag #real", ["real"]],
    ["`#code`", []],
    ["text `a #b` #c", ["c"]],
    ["%%#tag%%", []],
    ["a %%#hidden%% #shown", ["shown"]],
    ["<!-- #hidden --> #shown", ["shown"]],
    ["#inbox/to-read", ["inbox/to-read"]],
    ["#tag_with-dash", ["tag_with-dash"]],
    ["#émoji🙂ok", ["émoji🙂ok"]],
    ["#日本語", ["日本語"]],
    ["#a#b", ["a"]],
    ["#", []],
    ["# Heading", []],
    ["#Heading", ["Heading"]],
    ["## Title #tag", ["tag"]],
    ["## Title #tag ##", ["tag"]],
    ["- [ ] task #todo", ["todo"]],
    ["> quoted #q", ["q"]],
    ["[[Note#heading]] #t", ["t"]],
    ["![img](a.png) [#in-link](Note.md)", ["in-link"]],
    ["![#alt](a.png)", []],
    ["#tag\u2014dash", ["tag"]],
    ["#tag\u00a0x", ["tag"]],
    ["$$x #math$$ #after", ["after"]],
    // A marker glued to the word before it opens nothing (found by test/unit/markdown/scanner-vs-mdast.test.ts).
    ["x=#eq", []],
    ["=#single", []],
    ["2*#3x", []],
    ["a_#b", []],
    ["word~~#t~~", []],
    ["a ==#hl==", ["hl"]],
    ["(**#tag**)", ["tag"]],
    ["~~#s~~", ["s"]],
  ];
  for (const [input, want] of cases) {
    test(JSON.stringify(input), () => expect(bodyTags(input)).toEqual(want));
  }

  test("not in fenced code (``` and ~~~) or indented code", () => {
    const text = "```\n#a\n```\n~~~md\n#b\n~~~\n\n    #c\n\n#d\n";
    expect(bodyTags(text)).toEqual(["d"]);
  });

  test("not in a multi-line %% comment or $$ math block or html comment", () => {
    expect(bodyTags("%%\n#a\n%%\n#b\n$$\n#c\n$$\n<!--\n#d\n-->\n#e")).toEqual(["b", "e"]);
  });

  test("not inside an HTML block: an HTML table's hex colours are no tags (Obsidian renders no Markdown there)", () => {
    const table = ["<table>", "<tr><td> #ff0000 </td><td>red</td></tr>", "<tr>", "<td>", "#00ff00", "</td>", "</tr>", "</table>", "", "after #real"].join("\n");
    expect(bodyTags(table)).toEqual(["real"]);
  });

  test("each kind of HTML block ends where CommonMark ends it, and tags come back after it", () => {
    // Kinds 1-5 end on the line holding their end marker; kinds 6 and 7 at a blank line.
    expect(bodyTags("<pre>\n#a\n\n#b\n</pre> #c\n#d")).toEqual(["d"]);
    expect(bodyTags("<style>\n#a { color: #fff }\n</style>\n#d")).toEqual(["d"]);
    expect(bodyTags("<div>\n#a\n\n#b")).toEqual(["b"]);
    expect(bodyTags("<custom-box>\n#a\n\n#b")).toEqual(["b"]);
    expect(bodyTags("<?php #a ?>\n#b")).toEqual(["b"]);
    expect(bodyTags("<!DOCTYPE html #a>\n#b")).toEqual(["b"]);
  });

  test("what is not an HTML block keeps its tags", () => {
    // Inline HTML inside a paragraph, a kind-7 tag that would interrupt a paragraph, indented code-like HTML.
    expect(bodyTags("text <span>x</span> #a")).toEqual(["a"]);
    expect(bodyTags("para #a\n<custom-box>\n#b")).toEqual(["a", "b"]);
    expect(bodyTags("<span>x</span> #a")).toEqual(["a"]);
    expect(bodyTags("<notatag #a")).toEqual(["a"]);
  });

  test("an HTML block inside a quote or callout yields no tags either; it ends with its quote, its blank line or its marker", () => {
    expect(bodyTags("> <table>\n> <tr><td> #ff0000 </td></tr>\n> </table>\n\nafter #real")).toEqual(["real"]);
    expect(bodyTags("> [!note] Colours\n> <div>\n> #00ff00\n> </div>\n>\n> #back")).toEqual(["back"]);
    expect(bodyTags("> > <pre>\n> > #a\n> >\n> > #b\n> > </pre>\n> > #c")).toEqual(["c"]);
    // The quote ends the block: a line without `>` is no lazy continuation of HTML.
    expect(bodyTags("> <div>\n> #a\n#b")).toEqual(["b"]);
    // A kind-7 tag does not interrupt the quote's paragraph, as at the top level.
    expect(bodyTags("> para #a\n> <custom-box>\n> #b")).toEqual(["a", "b"]);
  });

  test("links inside an HTML block are still read (only tags are dropped)", () => {
    expect(parseNote("<div>\n[[Note]] #a\n</div>").links.map((l) => l.raw)).toEqual(["[[Note]]"]);
  });

  test("unclosed %% hides the rest of the note", () => {
    expect(bodyTags("#a\n%% open\n#b\n\n#c")).toEqual(["a"]);
  });

  test("occurrence lines and dedup (case-insensitive, first spelling wins)", () => {
    const p = parseNote("#Tag one\n\ntwo #tag #other\n");
    expect(p.tagOccurrences).toEqual([
      { tag: "Tag", source: "body", line: 1 },
      { tag: "tag", source: "body", line: 3 },
      { tag: "other", source: "body", line: 3 },
    ]);
    expect(p.tags).toEqual(["Tag", "other"]);
  });

  test("frontmatter tags come first and win the spelling", () => {
    const p = parseNote("---\ntags: [Project]\n---\n#project #x\n");
    expect(p.tags).toEqual(["Project", "x"]);
    expect(p.tagOccurrences[0]).toEqual({ tag: "Project", source: "frontmatter", line: 2 });
  });

  test("isTagChar agrees with Obsidian's tag regex for every BMP code unit", () => {
    const bad: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue; // lone surrogates are not valid strings for the u-flag test
      const s = String.fromCharCode(c);
      const viaRe = TAG_RE.exec(`#${s}`)?.[1] === s;
      if (viaRe !== isTagChar(c)) bad.push(c);
    }
    expect(bad).toEqual([]);
  });
});
