import { describe, expect, test } from "bun:test";
import { IndxError } from "../../../src/core/errors.ts";
import { resolveHeading } from "../../../src/patch/resolve-heading.ts";
import { analyze } from "../../../src/patch/structure.ts";

const NOTE = "# Apollo\n\n## Goals\n\ntext\n\n## Risks\n\n### Mitigations\n\nmore\n";

function miss(spec: string): IndxError {
  try {
    resolveHeading(analyze(NOTE), spec);
  } catch (err) {
    if (err instanceof IndxError) return err;
    throw err;
  }
  throw new Error("found");
}

describe("a heading target that matches nothing", () => {
  test("lists the note's headings, each as a target that would match it", () => {
    const e = miss("Timeline");
    expect(e.code).toBe("patch_target_not_found");
    expect(e.details?.headings).toEqual([
      { path: "Apollo", level: 1, line: 1 },
      { path: "Apollo > Goals", level: 2, line: 3 },
      { path: "Apollo > Risks", level: 2, line: 7 },
      { path: "Apollo > Risks > Mitigations", level: 3, line: 9 },
    ]);
    // The message may be logged: it says where to look, never the note's text.
    expect(e.message).toContain("details.headings lists the note's 4 headings");
    expect(e.message).not.toContain("Goals");
  });
});
