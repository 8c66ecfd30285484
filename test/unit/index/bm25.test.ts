import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { FtsQueries } from "../../../src/index/storage/queries/fts.ts";
import type { FileScope } from "../../../src/index/storage/queries/lists.ts";
import { NOTES_FTS_SQL } from "../../../src/index/storage/schema.ts";
import { compileQuery } from "../../../src/search/query.ts";

/**
 * FtsQueries.ranked reads notes_fts's posting lists itself (src/index/lexical/fts5-postings.ts) and
 * computes bm25 in JavaScript (src/index/lexical/bm25.ts). These tests hold it to FTS5's own
 * `ORDER BY bm25(...)` (FtsQueries.scored): the same notes, in the same order, with the same
 * scores to the last bit, on indexes with many segments, tombstones, rewritten rows, doclists
 * and position lists that run over several pages, and after FTS5 merged everything.
 */

/** A tiny deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed;
  const next = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  return { next, pick: <T>(xs: readonly T[]) => xs[next(xs.length)]! };
}

const VOCAB = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "running",
  "runs",
  "ran",
  "café",
  "cafe",
  "zeta",
  "network",
  "networks",
  "Ωmega",
  "über",
  "latency",
  "the",
  "of",
  "night",
  "day",
  "x",
  // Letters of three UTF-8 bytes are followed too (src/index/lexical/unicode61.ts).
  "東京",
  "検索",
  "서울",
];
const open: Database[] = [];
afterAll(() => {
  for (const db of open) db.close();
});

/** A notes_fts with `rows` generated notes, written over several transactions with deletes and rewrites. */
function index(seed: number, opts: { rows: number; pageSize?: number; optimize?: boolean }): { db: Database; fts: FtsQueries; ids: number[] } {
  const db = new Database(":memory:");
  open.push(db);
  db.run(NOTES_FTS_SQL);
  // Small pages make doclists and position lists run over many pages, as large vaults do.
  if (opts.pageSize) db.run(`INSERT INTO notes_fts(notes_fts, rank) VALUES ('pgsz', ${opts.pageSize})`);
  const r = random(seed);
  const text = (words: number) => Array.from({ length: words }, () => r.pick(VOCAB)).join(r.next(4) ? " " : ". ");
  const insert = db.prepare("INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) VALUES (?, ?, ?, ?, ?, ?)");
  const live = new Set<number>();
  let id = 0;
  for (let batch = 0; batch < 8; batch++) {
    db.run("BEGIN");
    for (let k = 0; k < opts.rows / 8; k++) {
      insert.run(++id, text(1 + r.next(3)), r.next(3) ? "" : text(2), r.next(2) ? "" : text(1), text(r.next(4)), text(5 + r.next(60)));
      live.add(id);
    }
    // Deletes and rewrites of rows written by earlier transactions leave tombstones in their segments.
    for (const victim of [...live].filter(() => r.next(10) === 0)) {
      db.run("DELETE FROM notes_fts WHERE rowid = ?", [victim]);
      if (r.next(2)) insert.run(victim, text(2), "", "", "", text(10 + r.next(30)));
      else live.delete(victim);
    }
    db.run("COMMIT");
  }
  if (opts.optimize) db.run("INSERT INTO notes_fts(notes_fts) VALUES ('optimize')");
  return { db, fts: new FtsQueries(db), ids: [...live] };
}

/** Queries as people type them: words, phrases, +required, -excluded, hyphenated words, repeats. */
function queries(seed: number, n: number): string[] {
  const r = random(seed);
  const item = () => {
    const w = r.pick(VOCAB);
    switch (r.next(7)) {
      case 0:
        return `"${w} ${r.pick(VOCAB)}"`;
      case 1:
        return `+${w}`;
      case 2:
        return `-${w}`;
      case 3:
        return `${w}-${r.pick(VOCAB)}`;
      default:
        return w;
    }
  };
  return Array.from({ length: n }, () => Array.from({ length: 1 + r.next(4) }, item).join(" "));
}

function expectSameRanking(fts: FtsQueries, qs: string[], scope: FileScope, limit: number): number {
  let compared = 0;
  for (const q of qs) {
    const { match } = compileQuery(q);
    if (match === null) continue;
    const mine = fts.rankedAsFts5(match, scope, limit);
    expect(mine, q).not.toBeNull();
    expect({ q, ranked: mine }).toEqual({ q, ranked: fts.scored(match, scope, limit) });
    compared++;
  }
  return compared;
}

describe("bm25 from the posting lists", () => {
  test("equals FTS5's bm25 over many segments, tombstones and rewritten rows", () => {
    const { fts } = index(1, { rows: 400 });
    expect(expectSameRanking(fts, queries(2, 150), { allowed: null }, 25)).toBeGreaterThan(100);
  });

  test("equals it when doclists and position lists run over several pages", () => {
    const { fts } = index(3, { rows: 400, pageSize: 64 });
    expect(expectSameRanking(fts, queries(4, 150), { allowed: null }, 1000)).toBeGreaterThan(100);
  });

  test("equals it after FTS5 merged the index into one segment", () => {
    const { fts } = index(5, { rows: 400, optimize: true });
    expectSameRanking(fts, queries(6, 100), { allowed: null }, 10);
  });

  test("keeps to a scope: allowed notes, excluded notes", () => {
    const { fts, ids } = index(7, { rows: 200 });
    const allowed = new Set(ids.filter((_, i) => i % 3 === 0));
    expectSameRanking(fts, queries(8, 60), { allowed, excluded: ids.slice(0, 20) }, 10);
  });

  test("reads the new version of the index after every write", () => {
    const { db, fts } = index(9, { rows: 80 });
    const match = compileQuery("alpha").match!;
    const before = fts.rankedAsFts5(match, { allowed: null }, 5);
    db.run("INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) VALUES (9999, 'alpha alpha', '', '', '', 'alpha')");
    const after = fts.rankedAsFts5(match, { allowed: null }, 5);
    expect(after).not.toEqual(before);
    expect(after![0]!.fileId).toBe(9999);
    expect(after).toEqual(fts.scored(match, { allowed: null }, 5));
  });

  test("keeps every row's length right when it reads only the rows written since: inserts, rewrites, deletes, a rebuild", () => {
    const { db, fts } = index(11, { rows: 200 });
    const qs = queries(12, 40);
    expectSameRanking(fts, qs, { allowed: null }, 20);
    const r = random(13);
    const text = (words: number) => Array.from({ length: words }, () => r.pick(VOCAB)).join(" ");
    const insert = db.prepare("INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) VALUES (?, ?, ?, ?, ?, ?)");
    for (let round = 0; round < 4; round++) {
      db.run("BEGIN");
      // Rows rewritten at another length, rows new past the highest rowid, rows gone.
      for (let k = 0; k < 10; k++) {
        const id = 1 + r.next(200);
        db.run("DELETE FROM notes_fts WHERE rowid = ?", [id]);
        if (k % 3) insert.run(id, text(1), "", "", "", text(3 + r.next(80)));
      }
      insert.run(1000 + round, text(2), "", "", text(1), text(40));
      db.run("COMMIT");
      expectSameRanking(fts, qs, { allowed: null }, 20);
    }
    // Made again from scratch: origins count from the start, and rowids come back with other lengths.
    db.run("DROP TABLE notes_fts");
    db.run(NOTES_FTS_SQL);
    for (let id = 1; id <= 30; id++) insert.run(id, text(1), "", "", "", text(1 + r.next(50)));
    expectSameRanking(fts, qs, { allowed: null }, 20);
  });

  test("reads a table rebuilt from scratch, though its structure record is the same as before", () => {
    const db = new Database(":memory:");
    open.push(db);
    const fts = new FtsQueries(db);
    const build = (word: string) => {
      db.run("DROP TABLE IF EXISTS notes_fts");
      db.run(NOTES_FTS_SQL);
      db.run("INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) VALUES (1, ?, '', '', '', 'text')", [word]);
    };
    build("alpha");
    expect(fts.rankedAsFts5(compileQuery("alpha").match!, { allowed: null }, 5)!.map((r) => r.fileId)).toEqual([1]);
    build("gamma");
    expect(fts.rankedAsFts5(compileQuery("gamma").match!, { allowed: null }, 5)!.map((r) => r.fileId)).toEqual([1]);
    expect(fts.rankedAsFts5(compileQuery("alpha").match!, { allowed: null }, 5)).toEqual([]);
  });

  test("leaves prefixes to FTS5", () => {
    const { fts } = index(11, { rows: 40 });
    expect(fts.rankedAsFts5(compileQuery("alph*").match!, { allowed: null }, 5)).toBeNull();
  });
});
