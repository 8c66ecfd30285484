import { describe, expect, test } from "bun:test";
import { unifiedDiff } from "../../../src/writes/diff.ts";
import { applyUnifiedDiff } from "../../support/unified-diff.ts";

/** A small deterministic generator (mulberry32), so a failure names its seed and replays. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A note of few distinct lines (so diffs must choose among equal lines), sometimes without a final newline or with CRLF. */
function note(rand: () => number, lines: number): string {
  const words = ["- [ ] task", "# Heading", "", "text", "more text", "^block", "text"];
  const eol = rand() < 0.2 ? "\r\n" : "\n";
  const body = Array.from({ length: lines }, () => words[Math.floor(rand() * words.length)]).join(eol);
  return rand() < 0.3 ? body : body + eol;
}

function edited(rand: () => number, text: string): string {
  const lines = text.split("\n");
  for (let n = Math.floor(rand() * 5); n >= 0; n--) {
    const at = Math.floor(rand() * (lines.length + 1));
    const r = rand();
    if (r < 0.4) lines.splice(at, 0, `new ${Math.floor(rand() * 3)}`);
    else if (r < 0.7) lines.splice(at, 1);
    else lines[at] = "changed";
  }
  return lines.join("\n");
}

describe("unified diffs of write previews", () => {
  test("applying the diff to the old text gives the new text, for random edits (seeded)", () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rand = random(seed);
      const before = note(rand, Math.floor(rand() * 30));
      const after = rand() < 0.1 ? note(rand, Math.floor(rand() * 30)) : edited(rand, before);
      const diff = unifiedDiff("N.md", before, after);
      expect({ seed, applied: applyUnifiedDiff(before, diff) }).toEqual({ seed, applied: after });
      // Past the edit limit the middle is one replacement: longer, still exact.
      expect({ seed, applied: applyUnifiedDiff(before, unifiedDiff("N.md", before, after, 1)) }).toEqual({ seed, applied: after });
    }
  });

  test("the shape of diff -u: headers, three lines of context, hunk counts, no newline at the end", () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16";
    const after = "1\n2\nTWO-B\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n";
    expect(unifiedDiff("Folder/N.md", before, after)).toBe(
      [
        "--- a/Folder/N.md",
        "+++ b/Folder/N.md",
        "@@ -1,5 +1,6 @@",
        " 1",
        " 2",
        "+TWO-B",
        " 3",
        " 4",
        " 5",
        "@@ -13,4 +14,4 @@",
        " 13",
        " 14",
        " 15",
        "-16",
        "\\ No newline at end of file",
        "+16",
        "",
      ].join("\n"),
    );
  });

  test("a new file is diffed from /dev/null; equal texts give no diff; a removal names the line before it", () => {
    expect(unifiedDiff("New.md", null, "# New\n")).toBe("--- /dev/null\n+++ b/New.md\n@@ -0,0 +1,1 @@\n+# New\n");
    expect(unifiedDiff("Same.md", "x\n", "x\n")).toBe("");
    expect(unifiedDiff("N.md", "a\nb\nc\n", "a\nc\n")).toBe("--- a/N.md\n+++ b/N.md\n@@ -1,3 +1,2 @@\n a\n-b\n c\n");
    expect(unifiedDiff("N.md", "", "a\n")).toBe("--- a/N.md\n+++ b/N.md\n@@ -0,0 +1,1 @@\n+a\n");
  });

  test("changes six or fewer lines apart share a hunk; seven apart make two", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `l${i + 1}`);
    const change = (...at: number[]) => lines.map((l, i) => (at.includes(i) ? `${l}!` : l)).join("\n");
    const hunks = (diff: string) => diff.split("\n").filter((l) => l.startsWith("@@")).length;
    expect(hunks(unifiedDiff("N.md", lines.join("\n"), change(5, 12)))).toBe(1);
    expect(hunks(unifiedDiff("N.md", lines.join("\n"), change(5, 13)))).toBe(2);
  });
});
