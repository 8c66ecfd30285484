import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { porterStem } from "../../../src/index/lexical/porter.ts";
import { FTS_COLUMNS } from "../../../src/index/lexical/search-document.ts";
import { FtsQueries } from "../../../src/index/storage/queries/fts.ts";
import { FTS_WEIGHTS, NOTES_FTS_SQL } from "../../../src/index/storage/schema.ts";
import { compileQuery } from "../../../src/search/query.ts";

/**
 * BM25F as search ranks (src/index/lexical/bm25.ts, docs/search.md "Lexical ranking"), held to a plain
 * computation from what FTS5 itself reports: each term's instances per note and column
 * (fts5vocab 'instance') and each column's length per note (the same instances counted). An index
 * written over several transactions with deletes and rewrites, so the posting lists span segments
 * with tombstones.
 */

const open: Database[] = [];
afterAll(() => {
  for (const db of open) db.close();
});

const VOCAB = ["alpha", "beta", "gamma", "delta", "network", "latency", "night", "day", "zeta", "café", "river", "stone"];

function random(seed: number) {
  let s = seed;
  const next = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  return { next, pick: <T>(xs: readonly T[]) => xs[next(xs.length)]! };
}

function index(seed: number, vocab: readonly string[] = VOCAB): { db: Database; fts: FtsQueries; live: Set<number> } {
  const db = new Database(":memory:");
  open.push(db);
  db.run(NOTES_FTS_SQL);
  const r = random(seed);
  const text = (words: number) => Array.from({ length: words }, () => r.pick(vocab)).join(" ");
  const insert = db.prepare("INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) VALUES (?, ?, ?, ?, ?, ?)");
  const live = new Set<number>();
  let id = 0;
  for (let batch = 0; batch < 6; batch++) {
    db.run("BEGIN");
    for (let k = 0; k < 50; k++) {
      // Bodies of very different lengths: what field normalisation is about.
      insert.run(
        ++id,
        text(1 + r.next(3)),
        r.next(3) ? "" : text(2),
        r.next(2) ? "" : text(1),
        text(r.next(4)),
        text(r.next(2) ? 5 + r.next(20) : 200 + r.next(400)),
      );
      live.add(id);
    }
    for (const victim of [...live].filter(() => r.next(12) === 0)) {
      db.run("DELETE FROM notes_fts WHERE rowid = ?", [victim]);
      if (r.next(2)) insert.run(victim, text(2), "", "", "", text(10 + r.next(30)));
      else live.delete(victim);
    }
    db.run("COMMIT");
  }
  db.run("CREATE VIRTUAL TABLE inst USING fts5vocab(notes_fts, 'instance')");
  return { db, fts: new FtsQueries(db), live };
}

/** BM25F computed plainly: k1 = 1.2, b = 0.75 in every field, FTS5's IDF, the schema's field weights. */
function reference(db: Database, live: Set<number>): (terms: string[]) => { fileId: number; score: number }[] {
  const columns = FTS_COLUMNS.length;
  const weights = FTS_COLUMNS.map((c) => FTS_WEIGHTS[c]);
  const colIndex = new Map<string, number>(FTS_COLUMNS.map((c, i) => [c, i]));
  const lengths = new Map<number, number[]>();
  const counts = new Map<string, Map<number, number[]>>();
  for (const { term, doc, col } of db.query<{ term: string; doc: number; col: string }, []>("SELECT term, doc, col FROM inst").all()) {
    if (!live.has(doc)) continue;
    const c = colIndex.get(col)!;
    if (!lengths.has(doc)) lengths.set(doc, new Array(columns).fill(0));
    lengths.get(doc)![c]!++;
    if (!counts.has(term)) counts.set(term, new Map());
    const byDoc = counts.get(term)!;
    if (!byDoc.has(doc)) byDoc.set(doc, new Array(columns).fill(0));
    byDoc.get(doc)![c]!++;
  }
  const n = live.size;
  const mean = FTS_COLUMNS.map((_, c) => [...lengths.values()].reduce((sum, l) => sum + l[c]!, 0) / n);
  return (terms) => {
    const scores = new Map<number, number>();
    for (const term of terms) {
      const byDoc = counts.get(term) ?? new Map<number, number[]>();
      const idf = Math.max(1e-6, Math.log((n - byDoc.size + 0.5) / (byDoc.size + 0.5)));
      for (const [doc, perColumn] of byDoc) {
        let tf = 0;
        for (let c = 0; c < columns; c++)
          if (perColumn[c]) tf += (weights[c]! * perColumn[c]!) / (mean[c]! > 0 ? 1 - 0.75 + (0.75 * lengths.get(doc)![c]!) / mean[c]! : 1);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * 2.2) / (tf + 1.2));
      }
    }
    return [...scores].map(([fileId, score]) => ({ fileId, score })).sort((a, b) => b.score - a.score || a.fileId - b.fileId);
  };
}

describe("BM25F from the posting lists", () => {
  test("equals a plain BM25F over FTS5's own instances and lengths", () => {
    const { db, fts, live } = index(11);
    const r = random(12);
    const bm25f = reference(db, live);
    let compared = 0;
    for (let q = 0; q < 60; q++) {
      const words = [...new Set(Array.from({ length: 1 + r.next(3) }, () => r.pick(VOCAB)))];
      const { match } = compileQuery(words.join(" "));
      const mine = fts.ranked(match!, { allowed: null }, 40)!;
      const want = bm25f(words.map((w) => porterStem(w.normalize("NFD").replace(/\p{M}/gu, ""))));
      expect(mine.map((m) => m.fileId)).toEqual(want.slice(0, 40).map((w) => w.fileId));
      for (const [i, m] of mine.entries()) expect(-m.bm25).toBeCloseTo(want[i]!.score, 9);
      compared++;
    }
    expect(compared).toBe(60);
  });

  test("a fresh process reads only the matched rows' lengths, and scores as when it holds every row's, across writes", () => {
    // Rare words match a few rows: their lengths are read one by one (src/index/lexical/fts5-postings.ts,
    // RowLengths); a query over a common word makes the other reader read every row's.
    const rare = Array.from({ length: 60 }, (_, i) => `rare${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const { db, live } = index(21);
    const insert = db.prepare("INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) VALUES (?, ?, ?, ?, ?, ?)");
    const write = (id: number, title: string, body: string) => {
      insert.run(id, title, "", "", "", body);
      live.add(id);
    };
    db.run("BEGIN");
    for (let id = 500; id < 560; id++) write(id, `${rare[id % 60]} note`, `${rare[(id * 7) % 60]} ${"alpha river ".repeat(id % 40)}`);
    db.run("COMMIT");
    const lazy = new FtsQueries(db);
    const whole = new FtsQueries(db);
    const r = random(22);
    const check = () => {
      const bm25f = reference(db, live);
      whole.ranked(compileQuery("alpha OR beta OR gamma OR delta").match!, { allowed: null }, 1);
      const fresh = new FtsQueries(db);
      for (let q = 0; q < 30; q++) {
        const words = [...new Set(Array.from({ length: 1 + r.next(2) }, () => r.pick(rare)))];
        const { match } = compileQuery(words.join(" OR "));
        const want = bm25f(words);
        const [a, b, c] = [lazy, whole, fresh].map((f) => f.ranked(match!, { allowed: null }, 40)!);
        expect(a).toEqual(b!);
        expect(c).toEqual(b!);
        expect(b!.map((m) => m.fileId)).toEqual(want.slice(0, 40).map((w) => w.fileId));
        for (const [i, m] of b!.entries()) expect(-m.bm25).toBeCloseTo(want[i]!.score, 9);
      }
    };
    check();
    // Added, edited and deleted notes: a new version of the index, read again by each reader.
    db.run("BEGIN");
    for (let id = 1000; id < 1020; id++) write(id, `${rare[id % 60]} note`, `${rare[(id * 7) % 60]} ${"stone ".repeat(id % 50)}`);
    for (let id = 500; id < 530; id++) {
      db.run("DELETE FROM notes_fts WHERE rowid = ?", [id]);
      if (id % 2) write(id, rare[id % 60]!, `${rare[(id + 3) % 60]} ${"night ".repeat(id % 90)}`);
      else live.delete(id);
    }
    db.run("COMMIT");
    check();
  });

  test("a title word counts the same in a long note as in a short one", () => {
    const db = new Database(":memory:");
    open.push(db);
    db.run(NOTES_FTS_SQL);
    const insert = db.prepare("INSERT INTO notes_fts(rowid, title, aliases, tags, headings, body) VALUES (?, ?, ?, ?, ?, ?)");
    insert.run(1, "Orchard", "", "", "", "word ".repeat(3000));
    insert.run(2, "Orchard", "", "", "", "word ".repeat(10));
    for (let i = 3; i < 40; i++) insert.run(i, `Note ${i}`, "", "", "", `an orchard mention ${"filler ".repeat(i % 7)}`);
    const [a, b] = new FtsQueries(db).ranked(compileQuery("orchard").match!, { allowed: null }, 2)!;
    expect([a!.fileId, b!.fileId].sort()).toEqual([1, 2]);
    expect(a!.bm25).toBe(b!.bm25);
  });
});
