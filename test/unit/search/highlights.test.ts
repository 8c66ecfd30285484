import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { markMatches, parseExpression } from "../../../src/index/lexical/marks.ts";
import { FTS_COLUMNS, type SearchDocument, searchDocument } from "../../../src/index/lexical/search-document.ts";
import { Unicode61 } from "../../../src/index/lexical/unicode61.ts";
import { FtsQueries } from "../../../src/index/storage/queries/fts.ts";
import { FTS_TOKENIZE } from "../../../src/index/storage/schema.ts";
import { compileQuery } from "../../../src/search/query.ts";

/**
 * FtsQueries.highlights marks only the windows of a body that can hold a match
 * (src/index/lexical/match-windows.ts). These tests hold it to what FTS5's highlight() marks in the whole
 * body: the same notes, the same columns, the same spans.
 */
const fts = new FtsQueries(new Database(":memory:"));
const whole = new Database(":memory:");
whole.run(`CREATE VIRTUAL TABLE docs USING fts5(${FTS_COLUMNS.join(", ")}, tokenize = '${FTS_TOKENIZE}')`);
const insert = whole.prepare<void, [number, string, string, string, string, string]>(
  `INSERT INTO docs(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ?, ?, ?, ?, ?)`,
);
const marks = FTS_COLUMNS.map((_, i) => `highlight(docs, ${i}, '[', ']') AS h${i}`).join(", ");
const select = whole.prepare<Record<string, string | number>, [string]>(`SELECT rowid AS id, ${marks} FROM docs WHERE docs MATCH ?`);
afterAll(() => {
  fts.close();
  whole.close();
});

type Doc = SearchDocument & { fileId: number };

/** What highlight() marks in the whole documents, as highlights() reports it. */
function wholeMarks(match: string, docs: Doc[]) {
  whole.run("BEGIN");
  try {
    for (const d of docs) insert.run(d.fileId, d.title, d.aliases, d.tags, d.headings, d.body);
    return select.all(match).map((row) => ({
      fileId: Number(row.id),
      columns: FTS_COLUMNS.filter((_, i) => String(row[`h${i}`]).includes("[")),
      spans: spansOf(String(row.h4)),
    }));
  } finally {
    whole.run("ROLLBACK");
  }
}

/** The bracketed runs of a text marked with [ and ] (the test texts hold no brackets). */
function spansOf(marked: string) {
  const spans: { start: number; end: number }[] = [];
  let removed = 0;
  for (let i = 0; i < marked.length; i++) {
    if (marked[i] === "[") spans.push({ start: i - removed++, end: -1 });
    else if (marked[i] === "]") spans[spans.length - 1]!.end = i - removed++;
  }
  return spans;
}

/** unicode61 as src/index/lexical/unicode61.ts learns it, asking an FTS5 table of its own. */
function learner(): Unicode61 {
  const db = new Database(":memory:");
  db.run(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '${FTS_TOKENIZE}')`);
  db.run("CREATE VIRTUAL TABLE i USING fts5vocab(t, 'instance')");
  return new Unicode61((probes) => {
    db.run("DELETE FROM t");
    for (const [n, text] of probes.entries()) db.query("INSERT INTO t(rowid, x) VALUES (?, ?)").run(n + 1, text);
    const out: string[][] = probes.map(() => []);
    for (const { term, doc } of db.query<{ term: string; doc: number }, []>("SELECT term, doc FROM i ORDER BY doc, col, offset").all())
      out[doc - 1]!.push(term);
    return out;
  });
}

const doc = (fileId: number, sections: string[], title = "Note"): Doc => ({
  fileId,
  ...searchDocument({ title, aliases: [], tags: [], headings: "", texts: sections }),
});

function expectSameMarks(match: string, docs: Doc[]): void {
  const byId = (a: { fileId: number }, b: { fileId: number }) => a.fileId - b.fileId;
  expect(fts.highlights(match, docs).sort(byId)).toEqual(wholeMarks(match, docs).sort(byId));
}

/** A seeded generator: next(n) in [0, n), and text(n), n words each followed by a separator. */
function randomTexts(seed: number, words: string[], separators: string[]) {
  let s = seed;
  const next = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  const text = (n: number) => Array.from({ length: n }, () => words[next(words.length)]! + separators[next(separators.length)]!).join("");
  return { next, text };
}

const FILLER = "Some words about gardening, weather and the morning commute go here. ".repeat(8);

describe("the windows' premise: a Porter stem less its last letter starts its word", () => {
  // Porter's own examples for each rule, and the words where a stem rewrites most (bility, ably, y → i, +e).
  const words = `caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized
    hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci
    digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism
    decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize
    electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible
    irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous effective
    bowdlerize probate rate cease controll roll sensibility mobility ability ably nobly eyed yes ies ated archaeology
    logy generalizations oscillators hoping hoped dying lying`.split(/\s+/);

  test("for every rule of the stemmer", () => {
    const db = new Database(":memory:");
    db.run(`CREATE VIRTUAL TABLE w USING fts5(word, tokenize = '${FTS_TOKENIZE}')`);
    db.run("CREATE VIRTUAL TABLE v USING fts5vocab(w, 'instance')");
    const insertWord = db.prepare<void, [number, string]>("INSERT INTO w(rowid, word) VALUES (?, ?)");
    for (const [i, word] of words.entries()) insertWord.run(i, word);
    const stems = db.query<{ term: string; doc: number }, []>("SELECT term, doc FROM v").all();
    db.close();
    expect(stems.length).toBe(words.length);
    const broken = stems.filter(({ term, doc }) => !words[doc]!.startsWith(term.slice(0, -1))).map(({ term, doc }) => `${words[doc]} → ${term}`);
    expect(broken).toEqual([]);
  });
});

describe("highlights mark what FTS5 marks in the whole body", () => {
  const cases: [query: string, sections: string[]][] = [
    ["running", [`${FILLER} She runs; he ran. The runner is running.`, FILLER]],
    ["happy", [`${FILLER} happiness, happily, HAPPY and happier`]],
    ["relational", [`${FILLER} relate, relational, relation, relations`]],
    ["generalizations", [`${FILLER} general generalize generalization generously`]],
    ['"circuit breaker"', [`${FILLER} circuit ${FILLER} breaker; circuit, breaker; the circuit-breaker`, "circuit", "breaker and more"]],
    ['"circuit breaker"', ["the last word is circuit", "breaker starts this section"]],
    ['"circuit breaker"', [`circuit ${"— ".repeat(5)} breaker`, `circuit (${FILLER}) breaker`]],
    ["resume", [`${FILLER} résumé, RÉSUMÉ and resume`]],
    ["café", [`${FILLER} cafe, Café, CAFÉ crème`]],
    ["config*", [`${FILLER} configuration configurable conf config`]],
    ["portfolio -bond", [`${FILLER} portfolio review`]],
    ["portfolio -bond", [`${FILLER} portfolio review`, "a bond"]],
    ["+alpha beta", [`${FILLER} alpha`, `${FILLER} beta alpha`]],
    ["alpha AND beta", [`alpha${FILLER}`, `${FILLER}beta`]],
    ["DEC-0045", [`${FILLER} recorded as DEC-0045, dec 0045 and DEC0045`]],
    ["v3.6.7", [`${FILLER} shipped v3.6.7 and v3 6 7`]],
    ["東京", [`${FILLER} 東京タワー and 東京`]],
    ["ﬁle", [`${FILLER} file ﬁle FILE`]],
    ["straße", [`${FILLER} strasse straße STRASSE`]],
    ["latency", [`${FILLER} LATENCY, Latency; latencies`, `# Latency\nlatent`]],
  ];
  for (const [q, sections] of cases)
    test(q, () => {
      const { match } = compileQuery(q);
      expect(match).not.toBeNull();
      expectSameMarks(match!, [doc(1, sections), doc(2, [FILLER, ...sections]), doc(3, [FILLER])]);
    });

  test("an expression with a private-use character, such as the windows' placeholder", () => {
    expectSameMarks('"\uE000" OR "private"', [doc(1, [`${FILLER} \uE000 private`, `private ${FILLER}`])]);
  });

  test("a title line left out of the body, and matches in the other columns", () => {
    const d = {
      fileId: 7,
      ...searchDocument({
        title: "Latency budget",
        aliases: ["slow"],
        tags: ["perf/latency"],
        headings: "Latency",
        texts: ["# Latency budget\nlatency", FILLER],
      }),
    };
    expectSameMarks(compileQuery("latency").match!, [d]);
  });

  test("random documents and queries over a small vocabulary", () => {
    const words = [
      "run",
      "running",
      "runner",
      "happy",
      "happiness",
      "the",
      "cat",
      "cats",
      "café",
      "cafe",
      "naïve",
      "x-ray",
      "A",
      "b2",
      "東京",
      "👍🏽run",
      "e\u0301",
      "relate",
      "relational",
    ];
    const separators = [" ", ", ", "\n", " — ", "; ", "\n\n", " (", ") ", "-", ".", "’"];
    const { next, text } = randomTexts(42, words, separators);
    for (let round = 0; round < 150; round++) {
      const docs = Array.from({ length: 4 }, (_, i) =>
        doc(
          i + 1,
          Array.from({ length: 1 + next(3) }, () => text(5 + next(40))),
        ),
      );
      const a = words[next(words.length)]!;
      const b = words[next(words.length)]!;
      const queries = [a, `"${a} ${b}"`, `${a.slice(0, 3)}*`, `${a} -${b}`, `+${a} ${b}`, `${a} ${b}`];
      for (const q of queries) {
        const { match } = compileQuery(q);
        if (match) expectSameMarks(match, docs);
      }
    }
  });

  test("documents in Latin, Greek and Cyrillic letters are marked without FTS5, exactly as FTS5 marks them", () => {
    // Words with every kind of Porter ending, and prefixes of them: the JavaScript marks must agree with highlight() on all.
    const words = `run running runner runs happy happiness happily the cat cats relate relational relation generalization
      general configuration configurable config conf x-ray b2 v3 a DEC 0045 circuit breaker breakers sized sizing hopping
      hoped ability ably agreed feed sky skies controll rolling electrical electricity formalize formal café Résumé naïve Ångström straße Þingvellir smørrebrød brøds Ærø œuvres Ελληνικά λόγος
      λόγοι Москва москвы ДОМА ☕️ 😀ok µs`.split(/\s+/);
    const separators = [" ", ", ", "\n", " — ", "; ", "\n\n", " (", ") ", "-", ".", "’", "_", " “", "” "];
    const { next, text } = randomTexts(7, words, separators);
    let marked = 0;
    const u = learner();
    for (let round = 0; round < 200; round++) {
      const docs = Array.from({ length: 4 }, (_, i) => ({
        fileId: i + 1,
        ...searchDocument({ title: text(2), aliases: [text(1)], tags: [text(1)], headings: text(3), texts: [text(5 + next(30)), text(next(20))] }),
      }));
      const [a, b, c] = [words[next(words.length)]!, words[next(words.length)]!, words[next(words.length)]!];
      const queries = [
        a,
        `"${a} ${b}"`,
        `${a.slice(0, 1 + next(4))}*`,
        `"${a} ${b.slice(0, 2)}"*`,
        `${a} -${b}`,
        `+${a} ${b} ${c}`,
        `${a} ${b} -"${c} ${a}"`,
        `${a} AND ${b}`,
      ];
      for (const q of queries) {
        const { match } = compileQuery(q);
        if (!match) continue;
        const quick = markMatches(match, docs, u);
        expect(quick?.rest).toEqual([]);
        const byId = (x: { fileId: number }, y: { fileId: number }) => x.fileId - y.fileId;
        expect(quick!.marked.sort(byId)).toEqual(wholeMarks(match, docs).sort(byId));
        marked += quick!.marked.length;
      }
    }
    expect(marked).toBeGreaterThan(1000);
  });

  test("characters outside ASCII are read as FTS5 reads them: folded, separators, or left to FTS5", () => {
    const u = learner();
    const chars = ["é", "Å", "ß", "Ø", "Ж", "ά", "µ", "ſ", "\uFE0F", "—", "’", "\u0301", "東", "🏽", "😀", "\uE000", "𠀀"];
    u.learn(chars);
    expect(chars.map((c) => u.fold(`a${c}b`))).toEqual([
      "aeb",
      "aab",
      "aßb",
      "aøb",
      "aжb",
      "aάb",
      "aμb", // case-folded, not lower-cased
      "asb",
      "a b", // separators become spaces, one per UTF-16 unit
      "a b",
      "a b",
      null, // a combining mark inside a word: FTS5 drops it
      "a東b", // a letter of three UTF-8 bytes
      null, // an emoji modifier newer than Unicode 6.1 is a token character to FTS5
      "a  b",
      null,
      null, // a letter outside the Basic Multilingual Plane
    ]);
    // FTS5's stemmer cuts 丸 (E4 B8 B8) in "a丸ing": its last two bytes are a doubled consonant once -ing goes.
    u.learn(["丸"]);
    expect([u.fold("a丸ing"), u.fold("丸 ing"), u.fold("a丸ED")]).toEqual([null, "丸 ing", null]);
    // Cut, "a丸ing" and "a乹ing" are different bytes to FTS5 (E4 B8 and E4 B9) but the same broken text to JavaScript.
    expectSameMarks(compileQuery("a丸ing").match!, [doc(1, ["a乹ing here"]), doc(2, ["a丸ing there"])]);
  });

  test("documents in CJK and mixed scripts are marked without FTS5 where its stemmer cuts no character, exactly as FTS5 marks them", () => {
    const words = `東京 日本語 検索 会議の 北京 丸 a丸ing 丸ed x丸s 東京ing running run 한국어 서울 カタカナ ひらがな café ｆｕｌｌ ＡＢＣ the cats`.split(
      /\s+/,
    );
    const separators = [" ", "、", "。", "\n", " — ", "「", "」", "・", "-", "（", "）"];
    const { next, text } = randomTexts(11, words, separators);
    let [quick, left] = [0, 0];
    const u = learner();
    for (let round = 0; round < 150; round++) {
      const docs = Array.from({ length: 4 }, (_, i) => doc(i + 1, [text(3 + next(25)), text(next(10))], text(1).trim() || "Note"));
      const [a, b] = [words[next(words.length)]!, words[next(words.length)]!];
      for (const q of [a, `"${a} ${b}"`, `${a.slice(0, 1 + next(2))}*`, `${a} -${b}`, `${a} ${b}`]) {
        const { match } = compileQuery(q);
        if (!match) continue;
        expectSameMarks(match, docs);
        const marked = markMatches(match, docs, u);
        // Only a text where a CJK character meets -ed or -ing is left to FTS5.
        for (const d of marked?.rest ?? []) expect([d.title, d.body].join(" ")).toMatch(/[\u0800-\uffff](?:ed|ing)/i);
        quick += marked?.marked.length ?? 0;
        left += marked?.rest.length ?? 0;
      }
    }
    // Both ways are taken many times.
    expect(quick).toBeGreaterThan(50);
    expect(left).toBeGreaterThan(50);
  });

  test("text with a character not followed here, and expressions the compiler does not write, are left to FTS5", () => {
    const u = learner();
    const docs = [
      doc(1, ["a café on the straße corner ☕️"]),
      doc(2, ["a שלום on the corner"]),
      doc(3, ["東京 corner"]),
      doc(4, ["corner cafe\u0301"]),
      doc(5, ["👍🏽corner"]),
    ];
    expect(markMatches(compileQuery("corner").match!, docs, u)?.rest.map((d) => d.fileId)).toEqual([4, 5]);
    expect(markMatches(compileQuery("café straße").match!, docs, u)?.marked.map((d) => d.fileId)).toEqual([1]);
    expect(markMatches(compileQuery("東京").match!, docs, u)?.marked.map((d) => d.fileId)).toEqual([3]);
    for (const expr of ['{title} : "corner"', "corner", '"a" NEAR "b"', '("a" AND "b") OR "c"', '"a" OR ("b" NOT "c")', '"a" "b"'])
      expect(parseExpression(expr, u)).toBeNull();
    expect(parseExpression('("a" OR "b") NOT ("c" OR "d")', u)).not.toBeNull();
  });
});
