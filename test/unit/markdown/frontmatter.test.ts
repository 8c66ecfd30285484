import { describe, expect, test } from "bun:test";
import { FRONTMATTER_MAX_DEPTH, splitFrontmatter } from "../../../src/markdown/frontmatter.ts";
import { parseNote } from "../../../src/markdown/parse.ts";

describe("splitFrontmatter (docs/obsidian.md)", () => {
  test("LF", () => {
    expect(splitFrontmatter("---\na: 1\n---\nbody")).toEqual({ yaml: "a: 1\n", yamlOffset: 4, yamlLine: 2, bodyOffset: 13, bodyLine: 4 });
  });
  test("CRLF", () => {
    const b = splitFrontmatter("---\r\na: 1\r\n---\r\nbody")!;
    expect([b.yaml, b.yamlOffset, b.bodyOffset, b.bodyLine]).toEqual(["a: 1\r\n", 5, 16, 4]);
  });
  test("closing --- with trailing spaces, and at EOF", () => {
    expect(splitFrontmatter("---\na: 1\n---   \nx")!.bodyOffset).toBe(16);
    const b = splitFrontmatter("---\na: 1\n---")!;
    expect([b.bodyOffset, b.bodyLine]).toEqual([12, 4]);
  });
  test("empty block", () => expect(splitFrontmatter("---\n---\nx")!.yaml).toBe(""));
  test("must start at byte 0: BOM, blank line, spaces → none", () => {
    expect(splitFrontmatter("\uFEFF---\na: 1\n---\n")).toBeNull();
    expect(splitFrontmatter("\n---\na: 1\n---\n")).toBeNull();
    expect(splitFrontmatter(" ---\na: 1\n---\n")).toBeNull();
  });
  test("opening needs a line break right after ---; closing must be exactly ---", () => {
    expect(splitFrontmatter("--- \na: 1\n---\n")).toBeNull();
    expect(splitFrontmatter("----\na: 1\n----\n")).toBeNull();
    expect(splitFrontmatter("---\na: 1\n----\n---x\n")).toBeNull();
    expect(splitFrontmatter("---\na: 1\n --- \n")).toBeNull();
  });
  test("unclosed → none", () => expect(splitFrontmatter("---\na: 1\n")).toBeNull());
});

describe("frontmatter parsing", () => {
  test("YAML 1.2 core: dates and yes/no stay strings", () => {
    const text = "---\ndate: 2020-08-21\nok: yes\nn: 012\nf: 1.50\nnothing:\n---\n";
    const p = parseNote(text);
    expect(p.frontmatter).toEqual({ date: "2020-08-21", ok: "yes", n: 12, f: 1.5, nothing: null });
    expect(p.frontmatterError).toBeNull();
    expect([p.bodyOffset, p.bodyLine]).toEqual([text.length, 8]);
  });
  test("JSON frontmatter is accepted", () => {
    expect(parseNote('---\n{"tags": ["x"], "a": 1}\n---\n').frontmatter).toEqual({ tags: ["x"], a: 1 });
  });
  test("empty frontmatter is an empty object", () => {
    const p = parseNote("---\n---\nbody");
    expect([p.frontmatter, p.frontmatterError, p.bodyLine]).toEqual([{}, null, 3]);
  });
  test("malformed YAML → null, short error with the file line, body still parsed", () => {
    const p = parseNote("---\ntitle: ok\nsecret: [unclosed, words\n---\n# Body #tag\n[[Link]]");
    expect(p.frontmatter).toBeNull();
    expect(p.frontmatterError).toMatch(/^frontmatter is not valid YAML \(line \d+\)$/);
    expect(p.frontmatterError).not.toContain("secret");
    expect(p.bodyLine).toBe(5);
    expect(p.headings.map((h) => h.text)).toEqual(["Body #tag"]);
    expect(p.tags).toEqual(["tag"]);
    expect(p.links.map((l) => l.linkpath)).toEqual(["Link"]);
  });
  test("error line is absolute in the file", () => {
    expect(parseNote("---\na: 1\nb: c: d\n---\n").frontmatterError).toBe("frontmatter is not valid YAML (line 3)");
  });
  test("duplicate keys are invalid", () => {
    expect(parseNote("---\na: 1\na: 2\n---\n").frontmatter).toBeNull();
  });
  test("non-mapping (list, scalar) → null with error", () => {
    for (const y of ["- a\n- b\n", "just text\n", "42\n"]) {
      const p = parseNote(`---\n${y}---\n`);
      expect(p.frontmatter).toBeNull();
      expect(p.frontmatterError).toBe("frontmatter is not a YAML mapping");
    }
  });
  test("an alias loop is invalid frontmatter, never a cyclic value", () => {
    for (const y of ["a: &a [*a]\n", "a: &a {self: *a}\n", "b: 1\nc: &c\n  - x\n  - *c\n"]) {
      const p = parseNote(`---\n${y}---\n# Body\n`);
      expect(p.frontmatter).toBeNull();
      expect(p.frontmatterError).toBe("frontmatter refers to itself (a YAML alias loop)");
      expect(p.headings.map((h) => h.text)).toEqual(["Body"]);
    }
  });
  test("a shared (non-looping) alias is fine", () => {
    expect(parseNote("---\na: &x [1, 2]\nb: *x\n---\n").frontmatter).toEqual({ a: [1, 2], b: [1, 2] });
  });
  test(`nesting deeper than ${FRONTMATTER_MAX_DEPTH} levels is invalid; exactly ${FRONTMATTER_MAX_DEPTH} is fine`, () => {
    const nested = (depth: number) => `---\nx: ${"[".repeat(depth)}${"]".repeat(depth)}\n---\n`;
    // The top-level mapping is level 1, so the flow lists add levels 2…depth+1.
    expect(parseNote(nested(FRONTMATTER_MAX_DEPTH - 1)).frontmatterError).toBeNull();
    const deep = parseNote(nested(FRONTMATTER_MAX_DEPTH));
    expect(deep.frontmatter).toBeNull();
    expect(deep.frontmatterError).toBe(`frontmatter is nested deeper than ${FRONTMATTER_MAX_DEPTH} levels`);
    expect(parseNote(nested(1200)).frontmatterError).toBe(`frontmatter is nested deeper than ${FRONTMATTER_MAX_DEPTH} levels`);
  });
  test("alias expansion is bounded (a billion laughs is invalid, not a hang)", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (const [prev, name] of [
      ["a", "b"],
      ["b", "c"],
      ["c", "d"],
      ["d", "e"],
      ["e", "f"],
    ])
      levels.push(`${name}: &${name} [${`*${prev}, `.repeat(8)}*${prev}]`);
    expect(parseNote(`---\n${levels.join("\n")}\n---\n`).frontmatter).toBeNull();
  });
  test("file that is only frontmatter", () => {
    const p = parseNote("---\ntags: [a]\n---\n");
    expect([p.bodyOffset, p.bodyLine, p.chunks.length, p.wordCount, p.tags]).toEqual([18, 4, 0, 0, ["a"]]);
  });
});

describe("aliases", () => {
  test("list, trimmed, empties and non-strings dropped", () => {
    expect(parseNote('---\naliases:\n  - " One "\n  - ""\n  - 12\n  - Two\n---\n').aliases).toEqual(["One", "Two"]);
  });
  test("single string, any key case", () => {
    expect(parseNote("---\nAliases: My Alias\n---\n").aliases).toEqual(["My Alias"]);
  });
  test("none", () => expect(parseNote("---\nalias: old\n---\n").aliases).toEqual([]));
});

describe("frontmatter tags (docs/obsidian.md)", () => {
  const fmTags = (y: string) => parseNote(`---\n${y}\n---\n`).tags;
  test("list of strings", () => expect(fmTags("tags:\n  - a\n  - b/c")).toEqual(["a", "b/c"]));
  test("flow list", () => expect(fmTags("tags: [a, '#b']")).toEqual(["a", "b"]));
  test("single space-free string", () => expect(fmTags("tags: my-tag")).toEqual(["my-tag"]));
  test("a string with spaces is dropped", () => expect(fmTags("tags: 'tag1, tag2'")).toEqual([]));
  test("list items with spaces dropped", () => expect(fmTags("tags: [ok, 'not ok']")).toEqual(["ok"]));
  test("non-string items dropped (unquoted numbers, nulls)", () => {
    expect(fmTags("tags:\n  - 2024\n  - '2024x'\n  -\n  - true")).toEqual(["2024x"]);
  });
  test("all-digit strings dropped", () => expect(fmTags("tags: ['2024', '#1984', y1984]")).toEqual(["y1984"]));
  test("first key matching /^tags$/i; `tag` is not recognised", () => {
    expect(fmTags("Tags: [A]\ntag: [B]")).toEqual(["A"]);
    expect(fmTags("tag: [B]")).toEqual([]);
  });
  test("`- #tag` is a YAML comment (null)", () => expect(fmTags("tags:\n  - #tag\n  - real")).toEqual(["real"]));
  test("occurrence lines point at the YAML line", () => {
    const p = parseNote("---\ntitle: x\ntags:\n  - one\n  - two\n---\n");
    expect(p.tagOccurrences).toEqual([
      { tag: "one", source: "frontmatter", line: 4 },
      { tag: "two", source: "frontmatter", line: 5 },
    ]);
  });
});
