import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { App } from "../../src/app/context.ts";
import type { Entry } from "../../src/bases/entry.ts";
import { parseBase } from "../../src/bases/parse.ts";
import { compileBase } from "../../src/bases/plan.ts";
import { type QueryWorld, runView } from "../../src/bases/query.ts";
import { type IndexSnapshot, type Prefilter, snapshotOf } from "../../src/bases/snapshot.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The prefilter narrows the files a base starts from, and the filters still decide: a base keeps
 * exactly the same rows with and without it. Generated notes hold every kind of value (numbers,
 * numeric strings, dates with and without time or zone, invalid dates, links, lists, booleans,
 * nulls, non-ASCII text, keys in two cases, declared types that convert or do not), and generated
 * filters compare them with constants of every kind.
 */

/** mulberry32: the same notes and filters on every run. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!, chance: (p: number) => next() < p };
}

/** YAML values of each property, as people write them. */
const VALUES: Record<string, string[]> = {
  status: [
    "done",
    "Done",
    '"dône"',
    '" done "',
    '"[[done]]"',
    '" [[done]]"',
    '"[[n1]]"',
    "4",
    "null",
    "[done, open]",
    "open",
    '""',
    "zz",
    '"Ä"',
    '"😀"',
    '"\\uE000x"',
  ],
  Status: ["done", "open", "null"],
  rating: ["4", "4.5", "3", '"4"', "-1", "true", "null", "[4]", "five", "0", "1e3"],
  due: [
    "2025-06-01",
    "2025-06-03",
    "2025-06-10",
    "2025-06-01T10:00",
    "2025-06-03T23:59:59",
    '"2025-06-02T23:30+05:00"',
    '"2025-06-02T01:30+05:00"',
    '"2025-06-02T22:00-09:00"',
    '"2025-06-02 08:00"',
    "2025-02-30",
    '"2025-6-1"',
    "20250601",
    "null",
    "[2025-06-01]",
    '"  2025-06-04"',
    '"[[2025-06-01]]"',
  ],
  done: ["true", "false", '"true"', '"false"', "1", "null", "yes"],
  score: ["5", '"5"', '" 7 "', '"x"', "5.5", "null", "[5]", "true", '"0x10"'],
  flag: ["true", '"true"', '"false"', "false", '"yes"', "1"],
  when: ["2025-06-01", '"2025-06-02T23:30+05:00"', '"2025-06-02T01:30+05:00"', '"2025-06-02T22:00-09:00"', '"2025-06-03 10:00"', "12", "nope", "null"],
  whentime: ["2025-06-02", "2025-06-02T10:00", '"x"'],
  kind: ["a", "[a, b]", "4", "null", "[]"],
  tags: ["[project]", "[project/x, done]", "[Project/Y]", "[other]", "null"],
  title: ["Alpha", "beta", '"Ünï"', "42"],
};

const TYPES = { types: { score: "number", flag: "checkbox", when: "date", whentime: "datetime", kind: "multitext", title: "text" } };

const FOLDERS = ["", "A/", "A/B/", "B/", "Ünï/", "Ab/"];
const BODY_TAGS = ["", "#done", "#area/x", "#Project/z", "#projects"];

function generateVault(sb: Sandbox, count: number): void {
  const r = random(7);
  sb.write(".obsidian/types.json", JSON.stringify(TYPES));
  for (let i = 0; i < count; i++) {
    const lines = Object.entries(VALUES).flatMap(([key, values]) => (r.chance(0.6) ? [`${key}: ${r.pick(values)}`] : []));
    const body = `Note ${i} ${r.pick(BODY_TAGS)}\n`;
    const path = `${r.pick(FOLDERS)}n${i}.md`;
    sb.write(path, lines.length || r.chance(0.5) ? `---\n${lines.join("\n")}\n---\n${body}` : body);
  }
  sb.write("A/pic.png", new Uint8Array([137, 80, 78, 71]));
  sb.write("B/data.base", "views:\n  - type: table\n    name: T\n");
  sb.write("done.md", "---\nstatus: done\n---\n");
  sb.write("C/Upper.MD", "---\nstatus: done\n---\n");
}

const TARGETS = [
  "status",
  "note.status",
  'note["Status"]',
  "STATUS",
  "rating",
  "due",
  "done",
  "score",
  "flag",
  "when",
  "whentime",
  "kind",
  "tags",
  "title",
  "missing",
  "file.ext",
  "file.name",
  "file.path",
  "file.folder",
  "file.size",
];

const CONSTANTS = [
  '"done"',
  '"Done"',
  '"dône"',
  '"[[done]]"',
  '" [[done]]"',
  '"done.md"',
  '"zz"',
  '"Ä"',
  '"😀"',
  "4",
  "4.5",
  '"4"',
  "0",
  "-1",
  "true",
  "false",
  "null",
  '"2025-06-01"',
  '"2025-06-03T12:00"',
  'date("2025-06-02")',
  "today()",
  'today() + "7d"',
  "now()",
  'now() - "36h"',
  '"5"',
  "5",
  '"a"',
  '["a", "b"]',
  '"md"',
  '"A"',
  '"A/B"',
  '"/"',
  "this.file.name",
  'duration("1d")',
  '"2025-06-02T23:30+05:00"',
  "1000",
  "1 + 3",
  "max(3, 5) - 0.5",
];

const OPS = ["==", "!=", "<", "<=", ">", ">="];

const METHODS = [
  'file.hasTag("project")',
  'file.hasTag("#Project", "done")',
  "file.hasTag(4)",
  'file.hasTag("area")',
  'file.inFolder("A")',
  'file.inFolder("/A/")',
  'file.inFolder("")',
  'file.inFolder("Ünï")',
  'file.hasProperty("status")',
  'file.hasProperty("Status")',
  "status",
  "done",
  "rating",
  "true",
  "1 > 2",
];

function comparison(r: ReturnType<typeof random>): string {
  const target = r.pick(TARGETS);
  const constant = r.pick(CONSTANTS);
  const op = r.pick(OPS);
  return r.chance(0.25) ? `${constant} ${op} ${target}` : `${target} ${op} ${constant}`;
}

function expression(r: ReturnType<typeof random>, depth: number): string {
  const roll = r.next();
  if (depth === 0 || roll < 0.45) return comparison(r);
  if (roll < 0.6) return r.pick(METHODS);
  if (roll < 0.7) return `!(${expression(r, depth - 1)})`;
  return `(${expression(r, depth - 1)}) ${r.chance(0.5) ? "&&" : "||"} (${expression(r, depth - 1)})`;
}

let sb: Sandbox;
let ctx: App;
let snapshot: IndexSnapshot;
const NOW = Date.parse("2025-06-03T12:00:00");

beforeAll(async () => {
  sb = sandbox();
  generateVault(sb, 240);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
  snapshot = snapshotOf(ctx.index, ctx.vault);
});

afterAll(() => {
  ctx?.close();
  sb?.cleanup();
});

/**
 * Runs a base with the prefilter off, always on and on where it is selective: the rows must be
 * the same. Returns them and how many files the prefilter let through when always on.
 */
function runBoth(yaml: string): { paths: string[]; candidates: number } {
  const base = compileBase(parseBase(yaml, "the base"), yaml, "the base");
  let candidates = 0;
  const world: QueryWorld = {
    entry: (path) => snapshot.entry(path),
    resolve: (linkpath, from) => snapshot.resolve(linkpath, from),
    candidatesFor(plans, env, prefilter) {
      const found = snapshot.candidatesFor(plans, env, prefilter);
      if (prefilter === "always") candidates = found.length;
      return found;
    },
  };
  const thisEntry: Entry = snapshot.entry("A/B/n1.md") ?? snapshot.candidates[0]!;
  const run = (prefilter: Prefilter) =>
    runView(base, 0, { world, thisEntry, now: NOW, offset: 0, pageSize: 1000, prefilter })
      .rows.map((row) => row.path)
      .join("\n");
  const narrowed = run("always");
  const all = run("off");
  expect({ yaml, paths: narrowed }).toEqual({ yaml, paths: all });
  expect({ yaml, paths: run("selective") }).toEqual({ yaml, paths: all });
  return { paths: narrowed ? narrowed.split("\n") : [], candidates };
}

describe("the prefilter never changes a result", () => {
  test("every comparison of every target with every constant", () => {
    let narrowed = 0;
    let total = 0;
    for (const target of TARGETS)
      for (const constant of CONSTANTS)
        for (const op of OPS) {
          const { candidates } = runBoth(`filters: ${JSON.stringify(`${target} ${op} ${constant}`)}\n`);
          total++;
          if (candidates < snapshot.candidates.length) narrowed++;
        }
    // The test means something only if the index really narrows most of them.
    expect(narrowed / total).toBeGreaterThan(0.5);
  }, 60_000);

  test("generated expressions with &&, || and !, and filter trees with and, or and not", () => {
    const r = random(11);
    let narrowed = 0;
    let kept = 0;
    for (let i = 0; i < 600; i++) {
      const yaml =
        i % 3 === 0
          ? `filters:\n  and:\n    - ${JSON.stringify(expression(r, 2))}\n    - or:\n        - ${JSON.stringify(expression(r, 1))}\n        - ${JSON.stringify(expression(r, 1))}\n    - not:\n        - ${JSON.stringify(expression(r, 1))}\nviews:\n  - type: table\n    name: V\n    filters: ${JSON.stringify(expression(r, 1))}\n`
          : `filters: ${JSON.stringify(expression(r, 3))}\n`;
      const { paths, candidates } = runBoth(yaml);
      if (candidates < snapshot.candidates.length) narrowed++;
      if (paths.length > 0) kept++;
    }
    expect(narrowed).toBeGreaterThan(200);
    expect(kept).toBeGreaterThan(150);
  }, 60_000);

  test("the candidates keep every row, and a selective filter reads few files", () => {
    const { paths, candidates } = runBoth(`filters: 'rating >= 4 && !file.hasTag("done") && file.inFolder("A")'\n`);
    expect(paths.length).toBeGreaterThan(0);
    expect(candidates).toBeLessThan(snapshot.candidates.length / 4);
  });
});
