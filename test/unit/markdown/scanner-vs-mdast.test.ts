/**
 * The hand-written scanner (src/markdown/) against a CommonMark parser, mdast-util-from-markdown
 * with GFM and YAML frontmatter, over every fixture vault and a seeded set of generated notes:
 * headings (level, text, line), fenced code (first and last line), Markdown links and images,
 * wikilinks and tags (found only where mdast has text), block ids and where the body starts.
 * A disagreement must belong to a named accepted difference (mdast/differences.ts, listed in
 * docs/obsidian.md, Scanner vs CommonMark); any other fails the test.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Comparison, compareNote, type Disagreement, type Feature } from "./mdast/compare.ts";
import { ACCEPTED } from "./mdast/differences.ts";
import { generateNote, rng } from "./mdast/generate.ts";

const FIXTURES = join(import.meta.dir, "../../../fixtures");
const SEED = 20261127;
const GENERATED = 200;

interface Tally {
  notes: number;
  counts: Record<Feature, number>;
  byClass: Map<string, number>;
  unexplained: string[];
}

function tally(notes: Iterable<{ name: string; text: string }>): Tally {
  const t: Tally = { notes: 0, counts: { frontmatter: 0, heading: 0, fence: 0, link: 0, wikilink: 0, tag: 0, block: 0 }, byClass: new Map(), unexplained: [] };
  for (const { name, text } of notes) {
    t.notes++;
    const c = compareNote(text);
    for (const k of Object.keys(t.counts) as Feature[]) t.counts[k] += c.counts[k];
    for (const d of c.disagreements) {
      const cls = classify(d, c);
      if (cls) t.byClass.set(cls, (t.byClass.get(cls) ?? 0) + 1);
      else t.unexplained.push(`${name}:${d.line} ${d.feature}, only the ${d.only === "scanner" ? "scanner" : "CommonMark"} reads ${d.what}`);
    }
  }
  return t;
}

const classify = (d: Disagreement, c: Comparison): string | undefined =>
  ACCEPTED.find((a) => a.explains(d, { oracle: c.oracle, wikilinks: c.wikilinks }))?.name;

function* markdownFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* markdownFiles(p);
    else if (e.name.endsWith(".md")) yield p;
  }
}

function* generated(): Generator<{ name: string; text: string }> {
  const r = rng(SEED);
  for (let i = 0; i < GENERATED; i++) yield { name: `generated#${i}`, text: generateNote(r) };
}

const report = (label: string, t: Tally) =>
  console.log(`${label}: ${t.notes} notes, compared ${JSON.stringify(t.counts)}; accepted differences ${JSON.stringify(Object.fromEntries(t.byClass))}`);

describe("scanner vs CommonMark (mdast-util-from-markdown)", () => {
  const vaults = readdirSync(FIXTURES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .filter((v) => !markdownFiles(join(FIXTURES, v)).next().done);

  test("the fixture vaults hold notes to compare", () => {
    expect(vaults).toEqual(expect.arrayContaining(["kepano", "demo-vault", "anchors"]));
  });

  for (const vault of vaults) {
    test(`fixtures/${vault}: every disagreement is an accepted difference`, () => {
      const dir = join(FIXTURES, vault);
      const t = tally([...markdownFiles(dir)].map((p) => ({ name: p.slice(dir.length + 1), text: readFileSync(p, "utf8") })));
      report(`fixtures/${vault}`, t);
      expect(t.unexplained).toEqual([]);
      expect(t.counts.heading).toBeGreaterThan(0);
    });
  }

  const gen = tally(generated());
  test(`${GENERATED} generated notes (seed ${SEED}): every disagreement is an accepted difference`, () => {
    report("generated", gen);
    expect(gen.unexplained).toEqual([]);
    for (const f of ["heading", "fence", "link", "wikilink", "tag", "block"] as const) expect(gen.counts[f]).toBeGreaterThan(50);
  });

  for (const cls of ACCEPTED) {
    test(`accepted difference "${cls.name}" still shows in its example, and explains it`, () => {
      const c = compareNote(cls.example);
      expect(c.disagreements.length).toBeGreaterThan(0);
      expect(c.disagreements.filter((d) => !cls.explains(d, { oracle: c.oracle, wikilinks: c.wikilinks }))).toEqual([]);
    });
  }

  test("docs/obsidian.md lists each accepted difference", () => {
    const doc = readFileSync(join(import.meta.dir, "../../../docs/obsidian.md"), "utf8");
    const section = doc.slice(doc.indexOf("## Scanner vs CommonMark"));
    expect(section.length).toBeLessThan(doc.length);
    expect(ACCEPTED.map((a) => a.name).filter((n) => !section.includes(`**${n}**`))).toEqual([]);
  });
});
