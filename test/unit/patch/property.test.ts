/**
 * Property test: random notes (generated with an independent oracle, see note-generator.ts) and
 * random valid patches on targets that exist uniquely. For every case the bytes before and after
 * the target region must be unchanged and the region must hold exactly what was asked, in the
 * note's line endings. Ambiguous and missing targets must fail and list the right candidates.
 *
 * Reproduce a failure with PATCH_SEED=<seed> (printed in the message).
 */
import { expect, test } from "bun:test";
import { IndxError } from "../../../src/core/errors.ts";
import { parseFrontmatterYaml, splitFrontmatter } from "../../../src/markdown/frontmatter.ts";
import { applyPatches } from "../../../src/patch/engine.ts";
import type { PatchOp } from "../../../src/patch/schema.ts";
import { type GeneratedNote, generateNote, HEADING_WORDS, type OracleHeading, prng, Rand } from "./note-generator.ts";

const DEFAULT_SEED = 20261122;
const SEED = process.env.PATCH_SEED ? Number(process.env.PATCH_SEED) : DEFAULT_SEED;
const CASES = 1500;

/** What a case expects: a text, or an error with (for ambiguity) candidate paths and lines. */
type Expectation =
  | { kind: "text"; text: string; renamed?: { from: string; to: string; level: number }[] }
  | { kind: "frontmatter"; prefix: string; suffix: string; key: string; value: unknown; before: Record<string, unknown> }
  | { kind: "error"; code: string; candidates?: { path: string; line: number; address: string }[] };

interface Case {
  op: PatchOp;
  expect: Expectation;
}

// ---- offsets from the generated lines -------------------------------------------------------

function lineStart(n: GeneratedNote, i: number): number {
  let off = 0;
  for (let j = 0; j < i && j < n.lines.length; j++) off += n.lines[j]!.length + n.eol.length;
  return Math.min(off, n.text.length);
}
/** Offset just past line i (its line break included when it has one). */
const lineNext = (n: GeneratedNote, i: number) => (i + 1 < n.lines.length ? lineStart(n, i + 1) : n.text.length);
const isBlank = (s: string) => /^[ \t]*$/.test(s);

/** The spec's rule for inserted Markdown: whole lines, in the note's line endings. */
function asLines(md: string, eol: string): string {
  if (md === "") return "";
  let s = md.replace(/\r\n?/g, "\n");
  if (!s.endsWith("\n")) s += "\n";
  return s.replace(/\n/g, eol);
}

/** Expected text for replacing [from, to) with `md`: setext guard and the missing-final-newline rule. */
function spliced(n: GeneratedNote, from: number, to: number, md: string): string {
  const text = n.text;
  let ins = asLines(md, n.eol);
  const lastLine = ins.slice(0, -n.eol.length).split(n.eol).pop() ?? "";
  const setextStarts = n.headings.filter((h) => h.setext).map((h) => lineStart(n, h.firstLine));
  if (ins !== "" && !isBlank(lastLine) && setextStarts.includes(to)) ins += n.eol;
  if (to === text.length && !n.finalNewline && ins !== "") {
    if (from === text.length) ins = n.eol + ins;
    ins = ins.slice(0, -n.eol.length);
  }
  return text.slice(0, from) + ins + text.slice(to);
}

// ---- heading oracle ---------------------------------------------------------------------------

const keyOf = (text: string) => text.toLowerCase();

interface Step {
  text: string;
  level: number | null;
}

function ancestors(n: GeneratedNote, h: OracleHeading): OracleHeading[] {
  const out: OracleHeading[] = [];
  for (let p = h.parent; p >= 0; p = n.headings[p]!.parent) out.unshift(n.headings[p]!);
  return out;
}

function matches(n: GeneratedNote, steps: Step[]): OracleHeading[] {
  const stepOk = (s: Step, h: OracleHeading) => keyOf(s.text) === keyOf(h.text) && (s.level === null || s.level === h.level);
  return n.headings.filter((h) => {
    if (!stepOk(steps[steps.length - 1]!, h)) return false;
    let k = steps.length - 2;
    for (const a of ancestors(n, h).reverse()) if (k >= 0 && stepOk(steps[k]!, a)) k--;
    return k < 0;
  });
}

/** Writes steps as a spec, with Obsidian-irrelevant noise: case, spacing, punctuation. */
function specText(r: Rand, steps: Step[]): string {
  const one = (s: Step) => {
    let t = r.bool(0.3) ? s.text.toUpperCase() : r.bool(0.3) ? s.text.toLowerCase() : s.text;
    if (r.bool(0.2)) t = t.replace(" ", "  ");
    if (r.bool(0.2)) t += r.pick(["!", "?", " ."]); // not ":", which would run into a "::" separator
    if (r.bool(0.2)) t = ` ${t} `;
    return s.level === null ? t : `${"#".repeat(s.level)} ${t.trim()}`;
  };
  return steps.map(one).join(r.pick([" > ", ">", " :: ", "::"]));
}

function randomSteps(r: Rand, n: GeneratedNote, h: OracleHeading): Step[] {
  const step = (x: OracleHeading): Step => ({ text: x.text, level: r.bool(0.3) ? x.level : null });
  const chain = ancestors(n, h).filter(() => r.bool(0.4));
  return [...chain.map(step), step(h)];
}

const pathOf = (n: GeneratedNote, h: OracleHeading) => [...ancestors(n, h), h].map((x) => x.text).join(" > ");

/** A spec that addresses exactly heading h, or null when none of a few tries is unique. */
function uniqueSpec(r: Rand, n: GeneratedNote, h: OracleHeading): string | null {
  for (let t = 0; t < 4; t++) {
    const steps = randomSteps(r, n, h);
    const hits = matches(n, steps);
    if (hits.length === 1 && hits[0] === h) return specText(r, steps);
  }
  return null;
}

function sectionEndLine(n: GeneratedNote, hi: number): number {
  const h = n.headings[hi]!;
  for (let k = hi + 1; k < n.headings.length; k++) if (n.headings[k]!.level <= h.level) return n.headings[k]!.firstLine;
  return n.lines.length;
}

function contentEnd(n: GeneratedNote, hi: number): number {
  const h = n.headings[hi]!;
  let last = h.lastLine;
  for (let i = h.lastLine + 1; i < sectionEndLine(n, hi); i++) if (!isBlank(n.lines[i]!)) last = i;
  return lineNext(n, last);
}

// ---- random inputs --------------------------------------------------------------------------

function randomMarkdown(r: Rand, nonEmpty = false): string {
  if (!nonEmpty && r.bool(0.08)) return "";
  const lines: string[] = [];
  for (let i = r.int(1, 3); i > 0; i--) {
    lines.push(r.pick(["new text", "- new item", "# New heading", "| n |", "> new quote", "", "  indented", "tail ^not-an-op"]));
  }
  if (nonEmpty && lines.every(isBlank)) lines.push("fallback");
  const sep = r.pick(["\n", "\n", "\r\n", "\r"]);
  return lines.join(sep) + (r.bool(0.5) ? sep : "");
}

function randomValue(r: Rand): unknown {
  return r.pick<unknown>([
    "plain words",
    "a: b",
    "yes",
    "",
    " padded ",
    "[[Link]]",
    "#tag",
    "2024-01-31",
    "123",
    'quote " and \\ backslash',
    "line\nbreak",
    "ünïcödé 🎉",
    42,
    -1.5,
    true,
    false,
    null,
    [],
    ["one", "two"],
    ["yes", 3, null, "a: b"],
    { a: 1, b: ["x"], c: { d: null } },
    {},
  ]);
}

// ---- cases ----------------------------------------------------------------------------------

function headingCase(r: Rand, n: GeneratedNote): Case | null {
  if (n.headings.length === 0) return null;
  const hi = r.int(0, n.headings.length - 1);
  const h = n.headings[hi]!;
  let spec = uniqueSpec(r, n, h);
  if (spec === null) {
    // No unique spec: the plain text is ambiguous and must fail with every candidate, or the
    // heading is addressed by its place among them ("Text[2]").
    const hits = matches(n, [{ text: h.text, level: null }]);
    if (hits.length < 2) return null;
    if (r.bool(0.5))
      return {
        op: { op: "append_to_section", heading: h.text, markdown: "x" },
        expect: {
          kind: "error",
          code: "patch_target_ambiguous",
          candidates: hits.map((x, i) => ({ path: pathOf(n, x), line: x.firstLine + 1, address: `${h.text}[${i + 1}]` })),
        },
      };
    spec = `${h.text}[${hits.indexOf(h) + 1}]`;
  }
  const md = randomMarkdown(r);
  const start = lineStart(n, h.firstLine);
  const afterHeading = lineNext(n, h.lastLine);
  switch (r.int(0, 4)) {
    case 0:
      return { op: { op: "insert_before_heading", heading: spec, markdown: md }, expect: { kind: "text", text: spliced(n, start, start, md) } };
    case 1:
      return {
        op: { op: "insert_after_heading", heading: spec, markdown: md },
        expect: { kind: "text", text: spliced(n, afterHeading, afterHeading, md) },
      };
    case 2:
      return {
        op: { op: "replace_section", heading: spec, markdown: md },
        expect: { kind: "text", text: spliced(n, afterHeading, contentEnd(n, hi), md) },
      };
    case 3: {
      const at = contentEnd(n, hi);
      return { op: { op: "append_to_section", heading: spec, markdown: md }, expect: { kind: "text", text: spliced(n, at, at, md) } };
    }
    default: {
      const to = `Renamed ${r.pick(["Omega", "Zeta", "Kappa"])}`;
      const from = start + h.textStart;
      const text = n.text.slice(0, from) + to + n.text.slice(from + h.text.length);
      return {
        op: { op: "rename_heading", from: spec, to },
        expect: { kind: "text", text, renamed: [{ from: h.text, to, level: h.level }] },
      };
    }
  }
}

function missingHeadingCase(r: Rand): Case {
  return {
    op: { op: "insert_after_heading", heading: `${r.pick(HEADING_WORDS)} Missing`, markdown: "x" },
    expect: { kind: "error", code: "patch_target_not_found" },
  };
}

function blockCase(r: Rand, n: GeneratedNote): Case | null {
  if (n.blocks.length === 0) return null;
  const b = r.pick(n.blocks);
  const spec = (r.bool(0.3) ? "^" : "") + (r.bool(0.3) ? b.id.toUpperCase() : b.id);
  const lines: string[] = [];
  for (let i = r.int(1, 3); i > 0; i--) lines.push(r.pick(["replaced words", "- replaced item", "| r |", "> replaced"]));
  const carries = r.bool(0.3);
  if (carries) lines[lines.length - 1] += ` ^${b.id}`;
  const sep = r.pick(["\n", "\r\n"]);
  const md = lines.join(sep) + (r.bool(0.5) ? sep : "");
  const from = lineStart(n, b.first);
  let expected: string;
  if (b.idLine >= 0) {
    expected = spliced(n, from, lineNext(n, carries ? b.idLine : b.last), md);
  } else {
    const withId = carries ? lines : [...lines.slice(0, -1), `${lines[lines.length - 1]} ^${b.id}`];
    expected = spliced(n, from, lineNext(n, b.last), withId.join("\n"));
  }
  return { op: { op: "replace_block", block_id: spec, markdown: md }, expect: { kind: "text", text: expected } };
}

function bodyCase(r: Rand, n: GeneratedNote): Case {
  const md = randomMarkdown(r);
  if (r.bool()) return { op: { op: "append_body", markdown: md }, expect: { kind: "text", text: spliced(n, n.text.length, n.text.length, md) } };
  const at = n.frontmatter === null ? 0 : lineNext(n, n.frontmatter.close);
  return { op: { op: "prepend_body", markdown: md }, expect: { kind: "text", text: spliced(n, at, at, md) } };
}

function frontmatterCase(r: Rand, n: GeneratedNote): Case {
  const fm = n.frontmatter;
  const before = fm === null ? {} : (parseFrontmatterYaml(splitFrontmatter(n.text)!.yaml).data ?? {});
  const value = randomValue(r);
  if (fm === null) {
    const key = r.pick(["title", "tags", "new key"]);
    return { op: { op: "set_frontmatter", key, value }, expect: { kind: "frontmatter", prefix: "", suffix: n.text, key, value, before } };
  }
  const existing = fm.entries.length > 0 && r.bool(0.7) ? r.pick(fm.entries) : null;
  if (existing === null) {
    const key = r.pick(["added", "Added Key", "x-y"]);
    const at = lineStart(n, fm.close);
    return {
      op: { op: "set_frontmatter", key, value },
      expect: { kind: "frontmatter", prefix: n.text.slice(0, at), suffix: n.text.slice(at), key, value, before },
    };
  }
  const from = lineStart(n, existing.first);
  const to = lineNext(n, existing.last);
  if (r.bool(0.3)) {
    return { op: { op: "delete_frontmatter", key: existing.key }, expect: { kind: "text", text: n.text.slice(0, from) + n.text.slice(to) } };
  }
  return {
    op: { op: "set_frontmatter", key: existing.key, value },
    expect: { kind: "frontmatter", prefix: n.text.slice(0, from), suffix: n.text.slice(to), key: existing.key, value, before },
  };
}

function makeCase(r: Rand, n: GeneratedNote): Case {
  for (;;) {
    const roll = r.next();
    const c =
      roll < 0.5
        ? headingCase(r, n)
        : roll < 0.65
          ? blockCase(r, n)
          : roll < 0.75
            ? bodyCase(r, n)
            : roll < 0.95
              ? frontmatterCase(r, n)
              : missingHeadingCase(r);
    if (c !== null) return c;
  }
}

// ---- checking -------------------------------------------------------------------------------

function check(n: GeneratedNote, c: Case): string | null {
  let result: ReturnType<typeof applyPatches>;
  try {
    result = applyPatches(n.text, [c.op]);
  } catch (e) {
    if (!(e instanceof IndxError)) return `threw ${String(e)}`;
    if (c.expect.kind !== "error") return `unexpected ${e.code}: ${e.message} ${JSON.stringify(e.details)}`;
    if (e.code !== c.expect.code) return `expected ${c.expect.code}, got ${e.code}`;
    if (c.expect.candidates && !Bun.deepEquals(e.details?.candidates, c.expect.candidates)) {
      return `candidates ${JSON.stringify(e.details?.candidates)} != ${JSON.stringify(c.expect.candidates)}`;
    }
    return null;
  }
  const got = result.text;
  switch (c.expect.kind) {
    case "error":
      return `expected ${c.expect.code}, got text ${JSON.stringify(got)}`;
    case "text":
      if (got !== c.expect.text) return `text\n  expected ${JSON.stringify(c.expect.text)}\n  actual   ${JSON.stringify(got)}`;
      if (c.expect.renamed && !Bun.deepEquals(result.renamedHeadings, c.expect.renamed)) return `renamed ${JSON.stringify(result.renamedHeadings)}`;
      return null;
    case "frontmatter": {
      const { prefix, suffix, key, value, before } = c.expect;
      if (!got.startsWith(prefix) || !got.endsWith(suffix) || got.length < prefix.length + suffix.length) {
        return `bytes outside the entry changed: ${JSON.stringify(got)}`;
      }
      const middle = got.slice(prefix.length, got.length - suffix.length);
      if (!middle.endsWith(n.eol) || middle.split(n.eol).some((l) => l.includes("\n") || l.includes("\r"))) {
        return `entry not in the note's line endings: ${JSON.stringify(middle)}`;
      }
      const fm = splitFrontmatter(got);
      const data = fm === null ? null : parseFrontmatterYaml(fm.yaml).data;
      if (data === null) return `frontmatter does not parse: ${JSON.stringify(got)}`;
      if (!Bun.deepEquals(data, { ...before, [key]: value })) return `frontmatter reads back as ${JSON.stringify(data)}`;
      return null;
    }
  }
}

test(`patch property: ${CASES} random notes and valid patches (seed ${SEED})`, () => {
  const r = new Rand(prng(SEED));
  const seen = new Map<string, number>();
  for (let i = 0; i < CASES; i++) {
    const note = generateNote(r);
    const c = makeCase(r, note);
    seen.set(c.op.op, (seen.get(c.op.op) ?? 0) + 1);
    const failure = check(note, c);
    if (failure !== null) {
      throw new Error(`PATCH_SEED=${SEED} case ${i}: ${JSON.stringify(c.op)}\n  note ${JSON.stringify(note.text)}\n  ${failure}`);
    }
  }
  // Every op kind was exercised.
  expect([...seen.keys()].sort()).toEqual(
    [
      "append_body",
      "append_to_section",
      "delete_frontmatter",
      "insert_after_heading",
      "insert_before_heading",
      "prepend_body",
      "rename_heading",
      "replace_block",
      "replace_section",
      "set_frontmatter",
    ].sort(),
  );
});
