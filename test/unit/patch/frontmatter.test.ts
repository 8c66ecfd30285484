import { describe, expect, test } from "bun:test";
import { parseFrontmatterYaml, splitFrontmatter } from "../../../src/markdown/frontmatter.ts";
import { deleteFrontmatter, setFrontmatter, topLevelEntries } from "../../../src/patch/frontmatter-edit.ts";
import { crlf, patch, patchError } from "./helpers.ts";

const data = (text: string) => {
  const fm = splitFrontmatter(text);
  return fm === null ? null : parseFrontmatterYaml(fm.yaml).data;
};

const NOTE = [
  "---",
  "# a comment that must survive",
  "title: 'Single quoted: kept'",
  "",
  "tags:",
  "- inline-style",
  "- list",
  "nested:",
  "  deep: 1 # trailing comment",
  "",
  "  more: [a, b]",
  '"quoted key": x',
  "after: z",
  "---",
  "body",
  "",
].join("\n");

describe("set_frontmatter", () => {
  test("replacing a key rewrites only its entry (key line + list lines at the key's indent)", () => {
    const out = patch(NOTE, { op: "set_frontmatter", key: "tags", value: ["a", "b"] });
    expect(out).toBe(NOTE.replace("tags:\n- inline-style\n- list\n", "tags:\n  - a\n  - b\n"));
    expect(data(out)).toEqual({ ...data(NOTE)!, tags: ["a", "b"] });
  });
  test("an entry's indented continuation, inner blank lines and comments belong to it", () => {
    const out = patch(NOTE, { op: "set_frontmatter", key: "nested", value: 5 });
    expect(out).toBe(NOTE.replace("nested:\n  deep: 1 # trailing comment\n\n  more: [a, b]\n", "nested: 5\n"));
  });
  test("the key is kept as written (quoted keys too)", () => {
    expect(patch(NOTE, { op: "set_frontmatter", key: "quoted key", value: "w" })).toBe(NOTE.replace('"quoted key": x', '"quoted key": w'));
  });
  test("a new key goes at the end of the block", () => {
    const out = patch(NOTE, { op: "set_frontmatter", key: "status", value: "draft" });
    expect(out).toBe(NOTE.replace("after: z\n", "after: z\nstatus: draft\n"));
  });
  test("no frontmatter: a new block at the top, in the note's line endings", () => {
    expect(patch("body\n", { op: "set_frontmatter", key: "tags", value: ["x"] })).toBe("---\ntags:\n  - x\n---\nbody\n");
    expect(patch(crlf("body\n"), { op: "set_frontmatter", key: "a", value: 1 })).toBe(crlf("---\na: 1\n---\nbody\n"));
    expect(patch("", { op: "set_frontmatter", key: "a", value: null })).toBe("---\na:\n---\n");
  });
  test("CRLF frontmatter stays CRLF", () => {
    const t = crlf("---\na: 1\nb: 2\n---\nx\n");
    expect(patch(t, { op: "set_frontmatter", key: "a", value: [1, 2] })).toBe(crlf("---\na:\n  - 1\n  - 2\nb: 2\n---\nx\n"));
    expect(patch(t, { op: "set_frontmatter", key: "c", value: true })).toBe(crlf("---\na: 1\nb: 2\nc: true\n---\nx\n"));
  });
  test("an empty block", () => {
    expect(patch("---\n---\nx", { op: "set_frontmatter", key: "a", value: "b" })).toBe("---\na: b\n---\nx");
  });
});

describe("values are written as Obsidian writes them", () => {
  const written = (value: unknown) => {
    const out = setFrontmatter("---\n---\n", "k", value);
    expect(data(out)).toEqual({ k: value instanceof Date ? value.toISOString() : value } as Record<string, unknown>);
    return out.slice(4, -4);
  };
  test("plain strings stay plain; dates stay strings", () => {
    expect(written("hello world")).toBe("k: hello world\n");
    expect(written("2024-05-01")).toBe("k: 2024-05-01\n");
    expect(written("12:30")).toBe("k: 12:30\n");
    expect(written("C#")).toBe("k: C#\n");
    expect(written("émoji 🎉")).toBe("k: émoji 🎉\n");
  });
  test("strings YAML would misread get double quotes", () => {
    for (const s of [
      "",
      " lead",
      "trail ",
      "a: b",
      "x #c",
      "end:",
      "[[Link]]",
      "#tag",
      "- item",
      "yes",
      "No",
      "true",
      "null",
      "~",
      "123",
      "1.5",
      "0x1F",
      "1e3",
      ".inf",
      "'q'",
      '"dq"',
      "@at",
      "`tick`",
      "a\nb",
      "tab\there",
      "{x}",
      "*star",
      "&amp",
      "!bang",
      "|pipe",
      ">gt",
      "%pct",
      "?q",
      ":colon",
    ]) {
      expect(written(s)).toBe(`k: ${JSON.stringify(s)}\n`);
    }
  });
  test("numbers, booleans, null", () => {
    expect(written(42)).toBe("k: 42\n");
    expect(written(-3.25)).toBe("k: -3.25\n");
    expect(written(false)).toBe("k: false\n");
    expect(written(null)).toBe("k:\n");
  });
  test("lists as block sequences indented two spaces; empty ones inline", () => {
    expect(written(["a", 1, null, "b c"])).toBe("k:\n  - a\n  - 1\n  -\n  - b c\n");
    expect(written([])).toBe("k: []\n");
    // "y" is a YAML 1.1 boolean, so it is quoted like "yes".
    expect(written([["x", "y"], []])).toBe('k:\n  - - x\n    - "y"\n  - []\n');
  });
  test("nested objects as indented block mappings", () => {
    expect(written({ a: 1, "b c": ["x"], d: { e: "f: g" }, empty: {} })).toBe('k:\n  a: 1\n  b c:\n    - x\n  d:\n    e: "f: g"\n  empty: {}\n');
    expect(written([{ a: 1, b: [2] }])).toBe("k:\n  - a: 1\n    b:\n      - 2\n");
  });
  test("Date objects become ISO strings", () => {
    expect(written(new Date(Date.UTC(2024, 0, 2, 3, 4, 5)))).toBe("k: 2024-01-02T03:04:05.000Z\n");
  });
  test("keys that need quotes get them", () => {
    expect(setFrontmatter("", "a: b", 1)).toBe('---\n"a: b": 1\n---\n');
    expect(setFrontmatter("", "yes", 1)).toBe('---\n"yes": 1\n---\n');
    expect(data(setFrontmatter("", "#x", "v"))).toEqual({ "#x": "v" });
  });
  test("non-JSON values are refused", () => {
    expect(patchError("", { op: "set_frontmatter", key: "k", value: undefined }).code).toBe("validation_failed");
    expect(patchError("", { op: "set_frontmatter", key: "k", value: new Map() }).code).toBe("validation_failed");
    expect(patchError("", { op: "set_frontmatter", key: "k", value: [1, () => 1] }).code).toBe("validation_failed");
  });
});

describe("delete_frontmatter", () => {
  test("removes the key and its value lines only", () => {
    expect(deleteFrontmatter(NOTE, "tags")).toBe(NOTE.replace("tags:\n- inline-style\n- list\n", ""));
    expect(deleteFrontmatter(NOTE, "title")).toBe(NOTE.replace("title: 'Single quoted: kept'\n", ""));
    const { title: _, ...rest } = data(NOTE)!;
    expect(data(deleteFrontmatter(NOTE, "title"))).toEqual(rest);
  });
  test("deleting the last key leaves an empty block", () => {
    expect(deleteFrontmatter("---\na: 1\n---\nx\n", "a")).toBe("---\n---\nx\n");
  });
  test("a missing key or no frontmatter: patch_target_not_found", () => {
    expect(patchError(NOTE, { op: "delete_frontmatter", key: "nope" }).details).toEqual({ key: "nope", op_index: 0 });
    expect(patchError("x\n", { op: "delete_frontmatter", key: "a" }).code).toBe("patch_target_not_found");
  });
});

describe("frontmatter that cannot be edited", () => {
  const broken = "---\na: [1, 2\nb: : :\n---\n# H\n";
  test("malformed YAML: parse_failed for property ops, other ops still work", () => {
    expect(patchError(broken, { op: "set_frontmatter", key: "a", value: 1 }).code).toBe("parse_failed");
    expect(patchError(broken, { op: "delete_frontmatter", key: "a" }).code).toBe("parse_failed");
    expect(patch(broken, { op: "append_to_section", heading: "H", markdown: "x" })).toBe(`${broken}x\n`);
  });
  test("JSON frontmatter is refused rather than written wrong", () => {
    const json = '---\n{"a": 1, "tags": ["x"]}\n---\n';
    expect(patchError(json, { op: "set_frontmatter", key: "a", value: 2 }).code).toBe("parse_failed");
    expect(patchError(json, { op: "set_frontmatter", key: "new", value: 2 }).code).toBe("parse_failed");
  });
  test("keys must be non-empty and on one line", () => {
    expect(patchError(NOTE, { op: "set_frontmatter", key: "a\nb", value: 1 }).code).toBe("validation_failed");
    expect(patchError(NOTE, { op: "set_frontmatter", key: "", value: 1 }).code).toBe("validation_failed");
  });
});

describe("topLevelEntries", () => {
  test("finds keys, their spans, and skips comments and indented lines", () => {
    const yaml = "# c\na: 1\nb:\n  - x\n\n# c2\nc: |\n  text\n\n  more\n\n'd''s': 2\n";
    expect(topLevelEntries(yaml).map((e) => [e.key, yaml.slice(e.start, e.end)])).toEqual([
      ["a", "a: 1\n"],
      ["b", "b:\n  - x\n"],
      ["c", "c: |\n  text\n\n  more\n"],
      ["d's", "'d''s': 2\n"],
    ]);
  });
});
