import { describe, expect, test } from "bun:test";
import { parseNote } from "../../../src/markdown/parse.ts";
import type { LinkRef } from "../../../src/markdown/types.ts";
import { rawLinks } from "./helpers.ts";

const one = (text: string): LinkRef => {
  const links = parseNote(text).links;
  expect(links.length).toBe(1);
  return links[0]!;
};
const parts = (text: string) => parseNote(text).links.map((l) => ({ embed: l.embed, linkpath: l.linkpath, subpath: l.subpath, display: l.display }));

describe("wikilinks (docs/obsidian.md)", () => {
  test("plain, position and raw", () => {
    expect(one("see [[Note]] here")).toEqual({
      embed: false,
      syntax: "wiki",
      linkpath: "Note",
      subpath: "",
      display: null,
      raw: "[[Note]]",
      line: 1,
      offset: 4,
    });
  });
  test("alias after the first | (trimmed)", () => {
    expect(parts("[[Folder/Note | Shown | more ]]")).toEqual([{ embed: false, linkpath: "Folder/Note", subpath: "", display: "Shown | more" }]);
  });
  test("| at index 0 is not an alias separator", () => {
    expect(parts("[[|x]]")).toEqual([{ embed: false, linkpath: "|x", subpath: "", display: null }]);
  });
  test("heading path and block subpaths", () => {
    expect(parts("[[Note#H1#H2]] [[#^id]] [[#Local]] [[N.md#^abc-1|alias]]")).toEqual([
      { embed: false, linkpath: "Note", subpath: "#H1#H2", display: null },
      { embed: false, linkpath: "", subpath: "#^id", display: null },
      { embed: false, linkpath: "", subpath: "#Local", display: null },
      { embed: false, linkpath: "N.md", subpath: "#^abc-1", display: "alias" },
    ]);
  });
  test("embeds with image size", () => {
    const l = one("![[img.png|100x145]]");
    expect([l.embed, l.linkpath, l.display, l.raw, l.offset]).toEqual([true, "img.png", "100x145", "![[img.png|100x145]]", 0]);
  });
  test("table-escaped pipe [[A\\|b]]", () => {
    const l = one("| col | [[A\\|b]] |");
    expect([l.linkpath, l.display, l.raw]).toEqual(["A", "b", "[[A\\|b]]"]);
  });
  test("contents trimmed and NFC-normalised", () => {
    const l = one("[[  Cafe\u0301 ]]");
    expect(l.linkpath).toBe("Caf\u00e9");
  });
  test("nested [[ is rejected (the inner link still counts)", () => {
    expect(rawLinks("[[a [[b]]")).toEqual(["[[b]]"]);
  });
  test("empty and unclosed are not links", () => {
    expect(rawLinks("[[]] [[ ]] [[open\nclose]]")).toEqual([]);
  });
  test("escaped \\[[ is not a link, escaped \\! is not an embed", () => {
    expect(rawLinks("\\[[Not]]")).toEqual([]);
    expect(parts("\\![[N]]")).toEqual([{ embed: false, linkpath: "N", subpath: "", display: null }]);
  });
  test("ignored in inline code, fences, indented code, comments", () => {
    const text = "`[[a]]` ``x [[b]] y``\n```\n[[c]]\n```\n\n    [[d]]\n\n%%[[e]]%% <!-- [[f]] -->\n[[g]]";
    expect(rawLinks(text)).toEqual(["[[g]]"]);
  });
  test("a list's indented continuation is not indented code", () => {
    expect(rawLinks("- item\n\n    [[inside]]")).toEqual(["[[inside]]"]);
  });
  test("line numbers and offsets across lines", () => {
    const p = parseNote("a\nb [[X]]\n\n![[Y]]");
    expect(p.links.map((l) => [l.raw, l.line, l.offset])).toEqual([
      ["[[X]]", 2, 4],
      ["![[Y]]", 4, 11],
    ]);
  });
  test("links in headings, lists, quotes and tables", () => {
    expect(rawLinks("# H [[a]]\n- [[b]]\n> [[c]]\n| [[d]] |")).toEqual(["[[a]]", "[[b]]", "[[c]]", "[[d]]"]);
  });
});

describe("Markdown links (docs/obsidian.md)", () => {
  test("percent-encoded destination with heading", () => {
    const l = one("[t](Note%20x.md#Some%20Heading)");
    expect([l.syntax, l.linkpath, l.subpath, l.display, l.raw]).toEqual(["markdown", "Note x.md", "#Some Heading", "t", "[t](Note%20x.md#Some%20Heading)"]);
  });
  test("angle-bracket destination with spaces", () => {
    expect(parts("[t](<a b.md>)")).toEqual([{ embed: false, linkpath: "a b.md", subpath: "", display: "t" }]);
  });
  test("optional title is stripped", () => {
    expect(parts("[t](Note.md \"Title\") [u](<x y.md> 'T')")).toEqual([
      { embed: false, linkpath: "Note.md", subpath: "", display: "t" },
      { embed: false, linkpath: "x y.md", subpath: "", display: "u" },
    ]);
  });
  test("same-note heading link", () => {
    expect(parts("[x](#heading)")).toEqual([{ embed: false, linkpath: "", subpath: "#heading", display: "x" }]);
  });
  test("images are embeds", () => {
    expect(parts("![alt|100](pics/a%20b.png)")).toEqual([{ embed: true, linkpath: "pics/a b.png", subpath: "", display: "alt|100" }]);
  });
  test("external URLs are skipped", () => {
    expect(rawLinks("[a](https://x.com) [b](mailto:a@b.c) [c](obsidian://open?x) ![d](http://x/i.png) [e](//cdn/x)")).toEqual([]);
  });
  test("bad percent escape keeps the raw destination", () => {
    expect(parts("[t](100%25%zz.md)")[0]!.linkpath).toBe("100%25%zz.md");
  });
  test("balanced parentheses in the destination", () => {
    expect(parts("[t](Note (1).md)")).toEqual([]); // space: not a CommonMark destination
    expect(parts("[t](Note_(1).md)")[0]!.linkpath).toBe("Note_(1).md");
  });
  test("brackets in link text; not a link without (dest)", () => {
    expect(rawLinks("[a [b] c](N.md) [just text] [ref][x] [^1]")).toEqual(["[a [b] c](N.md)"]);
  });
  test("ignored in inline code and fences", () => {
    expect(rawLinks("`[a](b.md)`\n```\n[c](d.md)\n```")).toEqual([]);
  });
  test("wikilink and markdown link on one line keep document order", () => {
    expect(rawLinks("[m](M.md) then [[W]] then ![i](I.png)")).toEqual(["[m](M.md)", "[[W]]", "![i](I.png)"]);
  });
});

describe("frontmatter links", () => {
  const text = [
    "---",
    'up: "[[Parent]]"',
    "related:",
    '  - "[[A|Alias]]"',
    '  - "text [[B#H]] and [[C]]"',
    "  - plain",
    'md: "[doc](Doc%20One.md)"',
    'url: "[x](https://x.com)"',
    "---",
    "body [[D]]",
  ].join("\n");
  const p = parseNote(text);
  test("keys, parts and order (frontmatter first)", () => {
    expect(p.links.map((l) => [l.syntax, l.key, l.linkpath, l.subpath, l.display, l.raw])).toEqual([
      ["frontmatter", "up", "Parent", "", null, "[[Parent]]"],
      ["frontmatter", "related.0", "A", "", "Alias", "[[A|Alias]]"],
      ["frontmatter", "related.1", "B", "#H", null, "[[B#H]]"],
      ["frontmatter", "related.1", "C", "", null, "[[C]]"],
      ["frontmatter", "md", "Doc One.md", "", "doc", "[doc](Doc%20One.md)"],
      ["wiki", undefined, "D", "", null, "[[D]]"],
    ]);
  });
  test("lines and offsets point at the raw link in the YAML", () => {
    for (const l of p.links) expect(text.slice(l.offset, l.offset + l.raw.length)).toBe(l.raw);
    expect(p.links.map((l) => l.line)).toEqual([2, 4, 5, 5, 7, 10]);
  });
  test("unquoted [[X]] is a YAML nested list, not a link", () => {
    expect(parseNote("---\nup: [[X]]\n---\n").links).toEqual([]);
  });
});
