import { describe, expect, test } from "bun:test";
import { crlf, patch, patchError } from "./helpers.ts";

describe("append_body / prepend_body", () => {
  test("append at the end; a final newline is added to the inserted lines", () => {
    expect(patch("a\n", { op: "append_body", markdown: "b" })).toBe("a\nb\n");
    expect(patch("a\n", { op: "append_body", markdown: "b\n" })).toBe("a\nb\n");
    expect(patch("", { op: "append_body", markdown: "b" })).toBe("b\n");
  });
  test("a note without a final newline keeps having none", () => {
    expect(patch("a", { op: "append_body", markdown: "b" })).toBe("a\nb");
    expect(patch("a", { op: "append_body", markdown: "b\nc\n" })).toBe("a\nb\nc");
    expect(patch("a\r\nz", { op: "append_body", markdown: "b" })).toBe("a\r\nz\r\nb");
  });
  test("inserted line endings follow the note (CRLF when its first line ending is CRLF)", () => {
    expect(patch("a\r\n", { op: "append_body", markdown: "b\nc\r\nd\re" })).toBe("a\r\nb\r\nc\r\nd\r\ne\r\n");
    expect(patch("a\nb\r\n", { op: "append_body", markdown: "x\r\ny" })).toBe("a\nb\r\nx\ny\n");
  });
  test("prepend goes right after the frontmatter block, or at the top", () => {
    expect(patch("---\na: 1\n---\nbody\n", { op: "prepend_body", markdown: "top" })).toBe("---\na: 1\n---\ntop\nbody\n");
    expect(patch("body\n", { op: "prepend_body", markdown: "top" })).toBe("top\nbody\n");
    expect(patch("---\na: 1\n---", { op: "prepend_body", markdown: "top" })).toBe("---\na: 1\n---\ntop");
    expect(patch(crlf("---\na: 1\n---\nbody\n"), { op: "prepend_body", markdown: "t1\nt2" })).toBe(crlf("---\na: 1\n---\nt1\nt2\nbody\n"));
    // An unclosed `---` is not frontmatter.
    expect(patch("---\nbody\n", { op: "prepend_body", markdown: "top" })).toBe("top\n---\nbody\n");
  });
  test("empty markdown inserts nothing", () => {
    const r = patch("a\n", { op: "append_body", markdown: "" });
    expect(r).toBe("a\n");
  });
});

const DOC = ["# A", "a text", "", "### A3", "a3 text", "", "", "## B", "b text", "", "# C", ""].join("\n");

describe("insert before / after a heading", () => {
  test("before the heading line", () => {
    expect(patch(DOC, { op: "insert_before_heading", heading: "B", markdown: "new" })).toBe(DOC.replace("## B", "new\n## B"));
  });
  test("after the heading line", () => {
    expect(patch(DOC, { op: "insert_after_heading", heading: "## B", markdown: "new" })).toBe(DOC.replace("## B\n", "## B\nnew\n"));
  });
  test("setext: after the underline; before it, a blank line keeps the inserted text out of the heading", () => {
    const t = "intro\n\nTitle\n=====\nbody\n";
    expect(patch(t, { op: "insert_after_heading", heading: "Title", markdown: "x" })).toBe("intro\n\nTitle\n=====\nx\nbody\n");
    expect(patch(t, { op: "insert_before_heading", heading: "Title", markdown: "x" })).toBe("intro\n\nx\n\nTitle\n=====\nbody\n");
    // The inserted lines already end with a blank line: nothing is added.
    expect(patch(t, { op: "insert_before_heading", heading: "Title", markdown: "x\n\n" })).toBe("intro\n\nx\n\nTitle\n=====\nbody\n");
  });
  test("a heading on the last line without a newline", () => {
    expect(patch("x\n# H", { op: "insert_after_heading", heading: "H", markdown: "y" })).toBe("x\n# H\ny");
    expect(patch("x\n# H", { op: "insert_before_heading", heading: "H", markdown: "y" })).toBe("x\ny\n# H");
  });
  test("CRLF", () => {
    expect(patch(crlf(DOC), { op: "insert_after_heading", heading: "A3", markdown: "n1\nn2" })).toBe(crlf(DOC.replace("### A3\n", "### A3\nn1\nn2\n")));
  });
});

describe("replace_section", () => {
  test("replaces the body (subsections included), keeps the heading line and the blank lines before the next heading", () => {
    expect(patch(DOC, { op: "replace_section", heading: "A", markdown: "only" })).toBe("# A\nonly\n\n# C\n");
    expect(patch(DOC, { op: "replace_section", heading: "A3", markdown: "x\ny" })).toBe(DOC.replace("a3 text\n", "x\ny\n"));
  });
  test("empty markdown empties the section", () => {
    expect(patch(DOC, { op: "replace_section", heading: "B", markdown: "" })).toBe(DOC.replace("## B\nb text\n", "## B\n"));
  });
  test("an empty section gets content right under its heading", () => {
    expect(patch("# A\n\n# B\n", { op: "replace_section", heading: "A", markdown: "x" })).toBe("# A\nx\n\n# B\n");
  });
  test("the last section of a note without a final newline", () => {
    expect(patch("# A\nold", { op: "replace_section", heading: "A", markdown: "new" })).toBe("# A\nnew");
    expect(patch("# A", { op: "replace_section", heading: "A", markdown: "new" })).toBe("# A\nnew");
    expect(patch("# A\nold\n\n", { op: "replace_section", heading: "A", markdown: "new" })).toBe("# A\nnew\n\n");
  });
  test("fenced code with # lines, tables and callouts are content, not structure", () => {
    const t = "# A\n```\n# A\n## B\n```\n| h |\n| - |\n| # x |\n> [!tip] T\n> # A\n\n# Z\n";
    expect(patch(t, { op: "replace_section", heading: "A", markdown: "new" })).toBe("# A\nnew\n\n# Z\n");
  });
  test("setext heading", () => {
    const t = "Title\n-----\nold\n\nNext\n====\n";
    expect(patch(t, { op: "replace_section", heading: "Title", markdown: "new" })).toBe("Title\n-----\nnew\n\nNext\n====\n");
  });
  test("new content directly followed by a setext heading gets a blank line", () => {
    const t = "# A\n```\nc\n```\nNext\n====\n";
    expect(patch(t, { op: "replace_section", heading: "A", markdown: "new" })).toBe("# A\nnew\n\nNext\n====\n");
  });
});

describe("append_to_section", () => {
  test("right after the section's last non-blank line (after its subsections), before the separating blank lines", () => {
    expect(patch(DOC, { op: "append_to_section", heading: "A", markdown: "end of A" })).toBe(DOC.replace("b text\n", "b text\nend of A\n"));
    expect(patch(DOC, { op: "append_to_section", heading: "A3", markdown: "x" })).toBe(DOC.replace("a3 text\n", "a3 text\nx\n"));
  });
  test("an empty section: right after the heading", () => {
    expect(patch("# A\n\n# B", { op: "append_to_section", heading: "A", markdown: "x" })).toBe("# A\nx\n\n# B");
  });
  test("the last section: at the end, keeping a missing final newline missing", () => {
    expect(patch("# A\nx", { op: "append_to_section", heading: "A", markdown: "y" })).toBe("# A\nx\ny");
    expect(patch(crlf("# A\nx\n\n"), { op: "append_to_section", heading: "A", markdown: "y" })).toBe(crlf("# A\nx\ny\n\n"));
  });
  test("nested lists and tables at the end of a section", () => {
    const t = "## L\n- a\n  - b\n    - c\n\n| x |\n| - |\n| 1 |\n\n## M\n";
    expect(patch(t, { op: "append_to_section", heading: "L", markdown: "| 2 |" })).toBe(t.replace("| 1 |\n", "| 1 |\n| 2 |\n"));
  });
});

describe("rename_heading", () => {
  test("keeps #s, indentation and closing #s; reports the rename", () => {
    const { applyPatches } = require("../../../src/patch/engine.ts") as typeof import("../../../src/patch/engine.ts");
    const r = applyPatches("x\n  ## Old one ##\ny\n", [{ op: "rename_heading", from: "old one", to: "New one" }]);
    expect(r.text).toBe("x\n  ## New one ##\ny\n");
    expect(r.renamedHeadings).toEqual([{ from: "Old one", to: "New one", level: 2 }]);
    expect(r.changed).toBe(true);
  });
  test("setext: only the text changes, the underline stays as it was", () => {
    expect(patch(crlf("Old\n===\n"), { op: "rename_heading", from: "Old", to: "Much longer" })).toBe(crlf("Much longer\n===\n"));
    expect(patch("two\nlines\n---\n", { op: "rename_heading", from: "two lines", to: "One" })).toBe("One\n---\n");
  });
  test("a heading with no text cannot be addressed", () => {
    expect(patchError("##\n", { op: "rename_heading", from: "## ", to: "x" }).code).toBe("validation_failed");
  });
  test("a path selects which heading to rename", () => {
    const t = "# P\n## Tasks\n# Q\n## Tasks\n";
    expect(patch(t, { op: "rename_heading", from: "Q > Tasks", to: "Done" })).toBe("# P\n## Tasks\n# Q\n## Done\n");
  });
  test("text that would not read back as the same heading is refused", () => {
    expect(patchError("## A\n", { op: "rename_heading", from: "A", to: "two\nlines" }).code).toBe("validation_failed");
    expect(patchError("## A\n", { op: "rename_heading", from: "A", to: "x #" }).code).toBe("validation_failed");
    expect(patchError("A\n---\n", { op: "rename_heading", from: "A", to: "- item" }).code).toBe("validation_failed");
    expect(patchError("## A\n", { op: "rename_heading", from: "A", to: "   " }).code).toBe("validation_failed");
  });
  test("renaming to the same text changes nothing and reports nothing", () => {
    const { applyPatches } = require("../../../src/patch/engine.ts") as typeof import("../../../src/patch/engine.ts");
    expect(applyPatches("# A\n", [{ op: "rename_heading", from: "a", to: "A" }])).toEqual({ text: "# A\n", renamedHeadings: [], changed: false });
  });
});
