import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { porterStem } from "../../../src/index/lexical/porter.ts";
import { FTS_TOKENIZE } from "../../../src/index/storage/schema.ts";

/** The stem FTS5 indexes for each word, read back from the index (one row per word). */
function fts5Stems(words: string[]): string[] {
  const db = new Database(":memory:");
  try {
    db.run(`CREATE VIRTUAL TABLE w USING fts5(word, tokenize = '${FTS_TOKENIZE}')`);
    db.run("CREATE VIRTUAL TABLE v USING fts5vocab(w, 'instance')");
    const insert = db.prepare<void, [number, string]>("INSERT INTO w(rowid, word) VALUES (?, ?)");
    db.transaction(() => {
      for (const [i, word] of words.entries()) insert.run(i, word);
    })();
    const stems: string[] = [];
    for (const { term, doc } of db.query<{ term: string; doc: number }, []>("SELECT term, doc FROM v").all()) stems[doc] = term;
    return stems;
  } finally {
    db.close();
  }
}

function expectSameStems(words: string[]): void {
  const expected = fts5Stems(words);
  const differ = words.flatMap((w, i) => (porterStem(w) === expected[i] ? [] : [`${w}: fts5 ${expected[i]}, ours ${porterStem(w)}`]));
  expect(differ).toEqual([]);
}

const markdownFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => join(e.parentPath, e.name));

describe("porterStem is FTS5's porter, word for word", () => {
  test("every ASCII word of the fixture vaults", () => {
    const words = new Set<string>();
    for (const file of markdownFiles("fixtures")) for (const w of readFileSync(file, "utf8").match(/[A-Za-z0-9]+/g) ?? []) words.add(w.toLowerCase());
    expect(words.size).toBeGreaterThan(1500);
    expectSameStems([...words]);
  });

  test("every rule's suffix after stems of every measure, with y, doubled letters and digits", () => {
    const suffixes = `s es ss sses ies ed eed ing at bl iz ated bled izing ational tional enci anci izer logi bli alli entli eli ousli
      ization ation ator alism iveness fulness ousness aliti iviti biliti ical ness icate iciti ful ative alize al ance ence er ic
      able ible ant ement ment ent ion sion tion ou ism ate iti ous ive ize e le ll y ly ity ies ying yed`.split(/\s+/);
    const stems = `a b y by ay tr ab cab oa feed agr hop tan fall hiss fiz fail fil happ sk rel cond val hesit digit conform radic
      differ vil analog vietnam predic oper feud decis hope call form sensit sensib tripl electr good reviv allow infer airlin gyroscop
      adjust defens irrit replac depend adopt homolog commun activ angular effect bowdler prob r ceas control ro mobil abl nob
      ey y x w yy bey sly cry trying a1 9 x9 12 q0z abcdefghij`.split(/\s+/);
    const words = stems.flatMap((stem) => suffixes.map((suffix) => stem + suffix));
    // Letters outside ASCII are bytes to FTS5's stemmer: consonants, and two of them each.
    for (const stem of ["þ", "brø", "straß", "smørrebrød", "ðy", "aþ", "œuvr", "λόγ", "москв", "ærø"]) for (const suffix of suffixes) words.push(stem + suffix);
    words.push("a".repeat(64), `${"a".repeat(60)}ness`, `${"a".repeat(61)}ness`, "ab", "is", "ed", "ing", "sses", "ies", "yes", "eyed", "oed", "aing");
    expectSameStems(words);
  });
});
