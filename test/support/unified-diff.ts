/**
 * Applies a unified diff to a text, checking every context and removed line against it, as
 * `patch` does without fuzz: written apart from src/writes/diff.ts, so a test that applies a
 * preview's diff checks that diff against an independent reading of the format.
 */
export function applyUnifiedDiff(before: string, diff: string): string {
  if (diff === "") return before;
  const source = linesOf(before);
  const rows = diff.replace(/\n$/, "").split("\n");
  if (!rows[0]?.startsWith("--- ") || !rows[1]?.startsWith("+++ ")) throw new Error("a unified diff starts with --- and +++ lines");
  const out: string[] = [];
  let read = 0;
  for (let i = 2; i < rows.length; ) {
    const m = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(rows[i]!);
    if (!m) throw new Error(`expected a hunk header, got ${rows[i]}`);
    const [aStart, aCount, , bCount] = m.slice(1).map(Number) as [number, number, number, number];
    const first = aCount === 0 ? aStart : aStart - 1;
    if (first < read) throw new Error("hunks overlap or go backwards");
    out.push(...source.slice(read, first));
    read = first;
    let taken = 0;
    let added = 0;
    for (i++; i < rows.length && !rows[i]!.startsWith("@@"); i++) {
      const row = rows[i]!;
      const noNewline = rows[i + 1] === "\\ No newline at end of file";
      const line = row.slice(1) + (noNewline ? "" : "\n");
      if (row[0] === " " || row[0] === "-") {
        if (source[read] !== line) throw new Error(`line ${read + 1} is ${JSON.stringify(source[read])}, the diff expects ${JSON.stringify(line)}`);
        read++;
        taken++;
        if (row[0] === " ") {
          out.push(line);
          added++;
        }
      } else if (row[0] === "+") {
        out.push(line);
        added++;
      } else throw new Error(`unexpected diff line ${JSON.stringify(row)}`);
      if (noNewline) i++;
    }
    if (taken !== aCount || added !== bCount) throw new Error(`hunk counts do not match its lines (${taken}/${aCount}, ${added}/${bCount})`);
  }
  out.push(...source.slice(read));
  return out.join("");
}

function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
