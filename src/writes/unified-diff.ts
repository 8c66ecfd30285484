/** Lines of context around each change, as `diff -u` shows them. */
const CONTEXT = 2;
/** Beyond this many differing lines the middle is shown as removed then added, without a line-by-line match. */
const MAX_MATCHED = 2_000;

type Line = { op: " " | "-" | "+"; text: string };

/**
 * A unified diff (`diff -u` without the file headers) of two versions of a text: hunks of changed
 * lines with a little context. Line breaks are not shown; CRs at line ends are dropped.
 */
export function unifiedDiff(before: string, after: string): string {
  const a = before.split("\n").map(stripCr);
  const b = after.split("\n").map(stripCr);
  const lines = diffLines(a, b);
  const out: string[] = [];
  let i = 0;
  let shown = 0;
  while (i < lines.length) {
    if (lines[i]!.op === " ") {
      i++;
      continue;
    }
    const start = Math.max(shown, i - CONTEXT);
    let end = i;
    // A hunk runs on while the next change is within twice the context.
    for (let j = i; j < lines.length; j++) {
      if (lines[j]!.op !== " ") end = j;
      else if (j - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(lines.length, end + CONTEXT + 1);
    const hunk = lines.slice(start, stop);
    const aStart = lines.slice(0, start).filter((l) => l.op !== "+").length + 1;
    const bStart = lines.slice(0, start).filter((l) => l.op !== "-").length + 1;
    const aCount = hunk.filter((l) => l.op !== "+").length;
    const bCount = hunk.filter((l) => l.op !== "-").length;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`, ...hunk.map((l) => `${l.op}${l.text}`));
    i = shown = stop;
  }
  return out.join("\n");
}

const stripCr = (l: string) => (l.endsWith("\r") ? l.slice(0, -1) : l);

/** The lines of both versions in order, each kept, removed or added (common head and tail, then an LCS of the middle). */
function diffLines(a: string[], b: string[]): Line[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const same = (t: string): Line => ({ op: " ", text: t });
  return [...a.slice(0, head).map(same), ...middle(am, bm), ...a.slice(a.length - tail).map(same)];
}

function middle(a: string[], b: string[]): Line[] {
  if (a.length * b.length > (MAX_MATCHED * MAX_MATCHED) / 4 || a.length === 0 || b.length === 0)
    return [...a.map((text): Line => ({ op: "-", text })), ...b.map((text): Line => ({ op: "+", text }))];
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: Line[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: " ", text: a[i++]! });
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ op: "-", text: a[i++]! });
    else out.push({ op: "+", text: b[j++]! });
  }
  while (i < a.length) out.push({ op: "-", text: a[i++]! });
  while (j < b.length) out.push({ op: "+", text: b[j++]! });
  return out;
}
