import { describe, expect, test } from "bun:test";
import { findHeadings, resolveHeading } from "../../../src/patch/resolve-heading.ts";
import { analyze, headingPath, sectionContentEnd } from "../../../src/patch/structure.ts";
import { patchError } from "./helpers.ts";

const NOTE = [
  "---", // 1
  "# not: a heading", // 2 (frontmatter comment)
  "---", // 3
  "# Projects", // 4
  "intro", // 5
  "### Deep", // 6  (H3 directly under H1)
  "deep text", // 7
  "## Tasks", // 8
  "```md", // 9
  "# Tasks", // 10 (inside fenced code: never a heading)
  "```", // 11
  "> [!note] Callout", // 12
  "> # Tasks", // 13 (inside a callout: not a heading either)
  "", // 14
  "Setext Title", // 15
  "============", // 16
  "", // 17
  "Tasks", // 18
  "-----", // 19 (setext H2)
  "", // 20
  "## Step 1: Setup", // 21
  "~~~", // 22
  "## Step 1: Setup", // 23
  "~~~", // 24
].join("\n");

describe("structure", () => {
  const s = analyze(NOTE);
  test("headings: ATX and setext, never in frontmatter, fences or callouts", () => {
    expect(s.headings.map((h) => [h.level, h.text, h.line, h.setext])).toEqual([
      [1, "Projects", 4, false],
      [3, "Deep", 6, false],
      [2, "Tasks", 8, false],
      [1, "Setext Title", 15, true],
      [2, "Tasks", 18, true],
      [2, "Step 1: Setup", 21, false],
    ]);
  });
  test("offsets: heading start and end (after the setext underline)", () => {
    const setext = s.headings[3]!;
    expect(NOTE.slice(setext.start, setext.end)).toBe("Setext Title\n============\n");
    const atx = s.headings[0]!;
    expect(NOTE.slice(atx.start, atx.end)).toBe("# Projects\n");
  });
  test("sections run to the next heading of the same or higher level; skipped levels nest", () => {
    const [projects, deep, tasks] = s.headings;
    expect(projects!.sectionEnd).toBe(s.headings[3]!.start);
    expect(deep!.sectionEnd).toBe(tasks!.start); // an H2 ends an H3's section
    expect(deep!.parent).toBe(0);
    expect(tasks!.parent).toBe(0);
    expect(headingPath(s, s.headings[4]!)).toBe("Setext Title > Tasks");
  });
  test("content end skips trailing blank lines", () => {
    const text = "# A\na\n\n\n# B\n";
    const a = analyze(text);
    expect(sectionContentEnd(a, a.headings[0]!)).toBe("# A\na\n".length);
    const blank = analyze("# A\n\n\n# B");
    expect(sectionContentEnd(blank, blank.headings[0]!)).toBe("# A\n".length);
  });
  test("CRLF offsets are UTF-16 indexes of the original text", () => {
    const text = "é\r\n# Ünïcode 🎉\r\nx\r\n";
    const h = analyze(text).headings[0]!;
    expect(text.slice(h.start, h.end)).toBe("# Ünïcode 🎉\r\n");
  });
});

describe("heading resolution", () => {
  const s = analyze(NOTE);
  const lines = (spec: string) => findHeadings(s, spec).map((h) => h.line);
  test("leaf text, Obsidian matching (case, punctuation, spacing)", () => {
    expect(lines("projects")).toEqual([4]);
    expect(lines("step 1 setup")).toEqual([21]);
    expect(lines("  STEP   1: setup!")).toEqual([21]);
    expect(lines("Step-1 setup")).toEqual([]); // "-" is significant
  });
  test("leading #s fix the level", () => {
    expect(lines("Tasks")).toEqual([8, 18]);
    expect(lines("## Tasks")).toEqual([8, 18]);
    expect(lines("# Tasks")).toEqual([]);
    expect(lines("### Deep")).toEqual([6]);
  });
  test("paths: each step inside the previous one's section, not necessarily a direct child", () => {
    expect(lines("Projects > Tasks")).toEqual([8]);
    expect(lines("Projects::Tasks")).toEqual([8]);
    expect(lines("Setext Title > Tasks")).toEqual([18]);
    expect(lines("# Projects > ## Tasks")).toEqual([8]);
    expect(lines("Projects > Deep")).toEqual([6]);
    expect(lines("Deep > Tasks")).toEqual([]); // Tasks is a sibling of Deep, not inside it
    expect(lines("Tasks > Projects")).toEqual([]);
  });
  test("a heading that contains '>' is found when no path matches", () => {
    const t = analyze("# Q > A\n\n# Q\n## A\n");
    expect(findHeadings(t, "Q > A").map((h) => h.line)).toEqual([3 + 1]); // the path wins
    const only = analyze("# Q > A\n");
    expect(findHeadings(only, "Q > A").map((h) => h.line)).toEqual([1]);
  });
  test("ambiguous: every candidate's path and line", () => {
    expect(() => resolveHeading(s, "Tasks")).toThrow();
    const e = patchError(NOTE, { op: "append_to_section", heading: "Tasks", markdown: "x" });
    expect(e.code).toBe("patch_target_ambiguous");
    expect(e.details).toEqual({
      heading: "Tasks",
      op_index: 0,
      candidates: [
        { path: "Projects > Tasks", line: 8, address: "Tasks[1]" },
        { path: "Setext Title > Tasks", line: 18, address: "Tasks[2]" },
      ],
    });
  });
  test("duplicates are addressed by their place: Tasks[2]; a literal heading text wins", () => {
    expect(resolveHeading(s, "Tasks[2]").line).toBe(18);
    expect(resolveHeading(s, "Tasks [1]").line).toBe(8);
    expect(patchError(NOTE, { op: "append_to_section", heading: "Tasks[3]", markdown: "x" }).code).toBe("patch_target_not_found");
    const literal = analyze("# Log[2]\n\n# Log\n\n# Log\n");
    expect(resolveHeading(literal, "Log[2]").line).toBe(1);
  });
  test("missing: patch_target_not_found with the heading and op index", () => {
    const e = patchError(NOTE, { op: "append_body", markdown: "x" }, { op: "insert_after_heading", heading: "Nope", markdown: "x" });
    expect(e.code).toBe("patch_target_not_found");
    expect(e.details).toMatchObject({ heading: "Nope", op_index: 1 });
    expect((e.details?.headings as unknown[] | undefined)?.length).toBeGreaterThan(0);
  });
  test("a spec that is only punctuation is invalid", () => {
    expect(patchError(NOTE, { op: "insert_after_heading", heading: "## !!", markdown: "x" }).code).toBe("validation_failed");
  });
});
