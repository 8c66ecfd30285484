import { expect, test } from "bun:test";
import { parseNote } from "../../../src/markdown/parse.ts";

/** Deterministic synthetic notes (frontmatter, headings, lists, tasks, links, tags, fences, tables). */
function makeNotes(targetBytes: number): string[] {
  let seed = 42;
  const rnd = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const words = "the of and index query latency cache schema deploy rollback thread async sqlite note vault link tag heading".split(" ");
  const sentence = () => {
    const n = 6 + rnd(14);
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = rnd(40);
      if (r === 0) out.push(`[[Note ${rnd(500)}]]`);
      else if (r === 1) out.push(`[[Note ${rnd(500)}#Section|alias]]`);
      else if (r === 2) out.push(`#topic/${words[rnd(words.length)]}`);
      else if (r === 3) out.push("`code #x`");
      else out.push(words[rnd(words.length)]!);
    }
    return `${out.join(" ")}.`;
  };
  const notes: string[] = [];
  let total = 0;
  while (total < targetBytes) {
    const lines = ["---", `title: Note ${notes.length}`, "date: 2024-01-02", `tags: [alpha, beta${rnd(9)}]`, "---", "", `# Note ${notes.length}`, ""];
    const sections = 3 + rnd(4);
    for (let s = 0; s < sections; s++) {
      lines.push(`## Section ${s}`, "", `${sentence()} ${sentence()}`, "");
      const kind = rnd(4);
      if (kind === 0) lines.push(`- [ ] ${sentence()}`, `- [x] ${sentence()}`, `- item ${sentence()}`, "");
      else if (kind === 1) lines.push("```ts", "// # not a heading [[NoLink]]", "const x = 1;", "```", "");
      else if (kind === 2) lines.push("| a | b |", "| - | - |", `| ${sentence()} | [[T|x]] |`, "");
      else lines.push(`> ${sentence()} ^blk${rnd(99)}`, "");
    }
    const note = lines.join("\n");
    notes.push(note);
    total += note.length;
  }
  return notes;
}

test("throughput on ~5 MB of synthetic notes (prints MB/s, no timing assertion)", () => {
  const notes = makeNotes(5_000_000);
  const bytes = notes.reduce((a, s) => a + Buffer.byteLength(s), 0);
  let links = 0;
  const rounds: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    for (const n of notes) links += parseNote(n).links.length;
    rounds.push(bytes / 1e6 / ((performance.now() - t0) / 1000));
  }
  console.log(
    `parseNote throughput: ${(bytes / 1e6).toFixed(1)} MB, ${notes.length} notes — ` +
      rounds.map((r, i) => `${i === 0 ? "cold" : "warm"} ${r.toFixed(1)} MB/s`).join(", "),
  );
  expect(links).toBeGreaterThan(0);
});
