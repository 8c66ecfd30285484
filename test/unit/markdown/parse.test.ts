import { describe, expect, test } from "bun:test";
import { parseNote } from "../../../src/markdown/parse.ts";
import type { ParsedNote } from "../../../src/markdown/types.ts";

const summary = (p: ParsedNote) => ({
  headings: p.headings.map((h) => [h.level, h.text, h.line]),
  links: p.links.map((l) => [l.raw, l.line]),
  tags: p.tagOccurrences.map((t) => [t.tag, t.line]),
  blocks: p.blocks.map((b) => [b.id, b.line]),
  tasks: p.tasks.map((t) => [t.status, t.text, t.line]),
  chunks: p.chunks.map((c) => [c.headingPath, c.startLine, c.endLine]),
});

const NOTE = [
  "---",
  "title: Demo",
  "aliases: [D]",
  "tags: [project]",
  'up: "[[Home]]"',
  "---",
  "Intro with [[A]] and #t1.",
  "",
  "# One",
  "- [ ] task [[B|bee]] ^blk",
  "- [x] done",
  "",
  "```ts",
  "// [[NotALink]] #notatag",
  "# not a heading",
  "```",
  "",
  "## Two #t2",
  "See [md](Other%20Note.md#Sec) and ![[pic.png|100]].",
  "Final line ^para-id",
  "",
].join("\n");

describe("parseNote", () => {
  test("a complete note, all outputs in document order", () => {
    const p = parseNote(NOTE);
    expect(p.frontmatter).toEqual({ title: "Demo", aliases: ["D"], tags: ["project"], up: "[[Home]]" });
    expect([p.bodyOffset, p.bodyLine, p.aliases, p.tags]).toEqual([NOTE.indexOf("Intro"), 7, ["D"], ["project", "t1", "t2"]]);
    expect(summary(p)).toEqual({
      headings: [
        [1, "One", 9],
        [2, "Two #t2", 18],
      ],
      links: [
        ["[[Home]]", 5],
        ["[[A]]", 7],
        ["[[B|bee]]", 10],
        ["[md](Other%20Note.md#Sec)", 19],
        ["![[pic.png|100]]", 19],
      ],
      tags: [
        ["project", 4],
        ["t1", 7],
        ["t2", 18],
      ],
      blocks: [
        ["blk", 10],
        ["para-id", 20],
      ],
      tasks: [
        [" ", "task [[B|bee]] ^blk", 10],
        ["x", "done", 11],
      ],
      chunks: [
        [[], 7, 7],
        [["One"], 9, 16],
        [["One", "Two #t2"], 18, 20],
      ],
    });
  });

  test("CRLF gives the same result as LF (except offsets)", () => {
    const lf = parseNote(NOTE);
    const crlf = parseNote(NOTE.replace(/\n/g, "\r\n"));
    expect(summary(crlf)).toEqual(summary(lf));
    expect(crlf.frontmatter).toEqual(lf.frontmatter);
    expect(crlf.chunks.map((c) => c.text)).toEqual(lf.chunks.map((c) => c.text));
    expect(crlf.headings.map((h) => h.text)).toEqual(lf.headings.map((h) => h.text));
    for (const l of crlf.links) expect(NOTE.replace(/\n/g, "\r\n").slice(l.offset, l.offset + l.raw.length)).toBe(l.raw);
  });

  test("empty file", () => {
    const p = parseNote("");
    expect(p).toEqual({
      frontmatter: null,
      frontmatterError: null,
      bodyOffset: 0,
      bodyLine: 1,
      aliases: [],
      tags: [],
      tagOccurrences: [],
      headings: [],
      links: [],
      blocks: [],
      tasks: [],
      chunks: [],
      wordCount: 0,
    });
  });

  test("BOM: no frontmatter, but the body still parses", () => {
    const p = parseNote("\uFEFF# Title\n#tag");
    expect([p.frontmatter, p.bodyOffset, p.headings.map((h) => h.text), p.tags]).toEqual([null, 0, ["Title"], ["tag"]]);
    expect(p.chunks[0]!.text).toBe("# Title\n#tag");
  });

  test("fence inside a block quote ends with the quote", () => {
    const p = parseNote("> ```\n> # in code [[x]]\n> ```\n> [[y]]\n\n> ```\n> [[z]]\n\n# After [[w]]");
    expect(p.links.map((l) => l.raw)).toEqual(["[[y]]", "[[w]]"]);
    expect(p.headings.map((h) => h.text)).toEqual(["After [[w]]"]);
  });

  test("fence inside a list item", () => {
    const p = parseNote("- item\n  ```\n  # x [[no]]\n  ```\n- [[yes]]\n    ```\n    [[no2]]\n    ```\n");
    expect(p.links.map((l) => l.raw)).toEqual(["[[yes]]"]);
    expect(p.headings).toEqual([]);
  });

  test("indented code only after a blank line and outside lists", () => {
    const p = parseNote("para\n    [[lazy]]\n\n    [[code]]\n    #code\n\n[[after]]");
    expect(p.links.map((l) => l.raw)).toEqual(["[[lazy]]", "[[after]]"]);
    expect(p.tags).toEqual([]);
  });

  test("odd inline nesting terminates and stays sane", () => {
    expect(parseNote("[a `b](x)` #t [[y]]").links.map((l) => l.raw)).toEqual(["[[y]]"]);
    expect(parseNote("[see [[X]]](Y.md)").links.map((l) => l.raw)).toEqual(["[see [[X]]](Y.md)", "[[X]]"]);
    expect(parseNote("[a %%b](x)%% c #t").tags).toEqual(["t"]); // the comment ends before " c #t"
  });

  test("YAML errors without a position still give a short message", () => {
    expect(parseNote("---\na: *nope\n---\n").frontmatterError).toBe("frontmatter is not valid YAML");
  });

  test("wordCount counts body tokens (CJK per character)", () => {
    expect(parseNote("---\ntitle: a b c\n---\none two  three\n\nfour-five #six").wordCount).toBe(5);
    expect(parseNote("日本語 abc").wordCount).toBe(4);
  });

  test("very long lines and pathological inline input stay fast", () => {
    const inputs = [
      "`".repeat(1) + " a`b".repeat(100_000),
      "[[".repeat(100_000),
      `${"[".repeat(100_000)}x`,
      "[a](".repeat(50_000),
      "%% ".repeat(1) + "x ".repeat(200_000),
      "<!-- ".repeat(50_000),
      "#".repeat(200_000),
      ("word #tag [[link]] " as string).repeat(20_000),
    ];
    for (const s of inputs) {
      const t0 = performance.now();
      parseNote(s);
      expect(performance.now() - t0).toBeLessThan(2000);
    }
    const p = parseNote("word #tag [[link]] ".repeat(20_000));
    expect([p.links.length, p.tagOccurrences.length]).toEqual([20_000, 20_000]);
  });
});
