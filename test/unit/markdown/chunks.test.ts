import { describe, expect, test } from "bun:test";
import { CHUNK_MAX_CHARS } from "../../../src/markdown/chunks.ts";
import { parseNote } from "../../../src/markdown/parse.ts";

const shape = (text: string, maxChars?: number) =>
  parseNote(text, { maxChars }).chunks.map((c) => ({ path: c.headingPath, lines: [c.startLine, c.endLine], text: c.text }));

describe("chunks", () => {
  test("default limit", () => expect(CHUNK_MAX_CHARS).toBe(2000));

  test("preamble, sections, heading paths with skipped levels", () => {
    const text = "---\ntitle: t\n---\nintro\n\n# A\na text\n### C\nc text\n## B\nb text\n# D\n";
    expect(shape(text)).toEqual([
      { path: [], lines: [4, 4], text: "intro" },
      { path: ["A"], lines: [6, 7], text: "# A\na text" },
      { path: ["A", "C"], lines: [8, 9], text: "### C\nc text" },
      { path: ["A", "B"], lines: [10, 11], text: "## B\nb text" },
      { path: ["D"], lines: [12, 12], text: "# D" },
    ]);
    expect(parseNote(text).chunks.map((c) => c.index)).toEqual([0, 1, 2, 3, 4]);
  });

  test("empty preamble and blank edges are dropped; heading-only sections kept", () => {
    expect(shape("\n\n# A\n\n\n# B\n\nb\n\n")).toEqual([
      { path: ["A"], lines: [3, 3], text: "# A" },
      { path: ["B"], lines: [6, 8], text: "# B\n\nb" },
    ]);
  });

  test("setext headings start their section at the text line", () => {
    expect(shape("pre\n\nTitle\n=====\nbody\n")).toEqual([
      { path: [], lines: [1, 1], text: "pre" },
      { path: ["Title"], lines: [3, 5], text: "Title\n=====\nbody" },
    ]);
  });

  test("a fence containing # lines is not split into sections", () => {
    const text = "# Real\n```bash\n# not a heading\necho hi\n# nor this\n```\nafter";
    expect(shape(text)).toEqual([{ path: ["Real"], lines: [1, 7], text }]);
  });

  test("oversized sections are split at blank lines into pieces ≤ maxChars", () => {
    const para = (n: number) => `p${n} ${"x".repeat(40)}`;
    const text = ["# H", "", para(1), "", para(2), "", para(3), "", para(4)].join("\n");
    const chunks = shape(text, 100);
    // "# H" + p1 + p2 = 95 chars fits; p3 + p4 the next piece.
    expect(chunks.map((c) => c.lines)).toEqual([
      [1, 5],
      [7, 9],
    ]);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(100);
      expect(c.path).toEqual(["H"]);
      expect(c.text).not.toMatch(/^\s*\n|\n\s*$/);
    }
  });

  test("never splits inside a fenced code block (blank lines inside the fence)", () => {
    const fence = ["```", "a".repeat(30), "", "b".repeat(30), "", "c".repeat(30), "```"].join("\n");
    const text = ["# H", "", "intro text", "", fence, "", "outro"].join("\n");
    const chunks = shape(text, 60);
    const withFence = chunks.find((c) => c.text.includes("```"))!;
    expect(withFence.text).toBe(fence); // stays whole even though it is larger than the limit
    expect(chunks.map((c) => c.text).join("\n\n")).toBe(text);
  });

  test("~~~ fences close only with the same char and at least the same length", () => {
    const fence = ["~~~~", "x".repeat(30), "", "```", "", "~~~", "", "y".repeat(30), "~~~~"].join("\n");
    const chunks = shape(`# H\n\n${fence}\n\nend`, 40);
    expect(chunks.some((c) => c.text === fence)).toBe(true);
  });

  test("a paragraph larger than the limit is split at line boundaries", () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i} ${"z".repeat(20)}`);
    const chunks = shape(lines.join("\n"), 70);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(70);
    expect(chunks.map((c) => c.text).join("\n")).toBe(lines.join("\n"));
    expect(chunks[0]!.lines[0]).toBe(1);
    expect(chunks.at(-1)!.lines[1]).toBe(10);
  });

  test("a single line longer than the limit stays whole", () => {
    const long = "w".repeat(500);
    expect(shape(`# H\n${long}\nshort`, 100).map((c) => c.text)).toEqual(["# H", long, "short"]);
  });

  test("CRLF input gives LF chunk text with correct lines", () => {
    expect(shape("---\r\na: 1\r\n---\r\n# A\r\ntext\r\n\r\n## B\r\nmore\r\n")).toEqual([
      { path: ["A"], lines: [4, 5], text: "# A\ntext" },
      { path: ["A", "B"], lines: [7, 8], text: "## B\nmore" },
    ]);
  });

  test("text without a trailing newline and empty input", () => {
    expect(shape("only line")).toEqual([{ path: [], lines: [1, 1], text: "only line" }]);
    expect(shape("")).toEqual([]);
    expect(shape("\n\n  \n")).toEqual([]);
  });
});
