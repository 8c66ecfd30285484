import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { compileQuery } from "../../../src/search/query.ts";

// Same columns and tokenizer as the real index, so every expression is checked by FTS5 itself.
const db = new Database(":memory:");
db.run("CREATE VIRTUAL TABLE t USING fts5(title, aliases, tags, headings, body, tokenize = 'porter unicode61 remove_diacritics 2')");
const ROWS: [title: string, body: string][] = [
  ["Alpha", "the quick brown fox jumps over the lazy dog"],
  ["Beta", "brown bread and a quick lunch"],
  ["Decision", "Recorded as DEC-0045 after review"],
  ["Release", "Shipped v3.6.7 today"],
  ["Next release", "Planning v3.6.8 next week"],
  ["Contact", "Write to someone@example.com about node.js and C++"],
  ["Japanese", "日本語のテキスト and ラーメン"],
  ["Prefix", "configuration configurable"],
  ["Cafe", "Café crème with résumé"],
  ["Hyphen", "the non-small-cell variant"],
  ["Apart", "a cell that is small and non invasive"],
  ["Numbers", "a score of +1 and -5 degrees"],
  ["Joined", "low birthweight and GATA3 expression"],
  ["Dashed", "BCL-2 and COVID-19 levels"],
  ["Greek", "IFN-gamma and TNFα signalling"],
];
const insert = db.prepare("INSERT INTO t (rowid, title, aliases, tags, headings, body) VALUES (?, ?, '', '', '', ?)");
for (const [i, [title, body]] of ROWS.entries()) insert.run(i + 1, title, body);
afterAll(() => db.close());

const titleQuery = db.prepare<{ title: string }, [string]>("SELECT title FROM t WHERE t MATCH ? ORDER BY bm25(t), rowid");

/** Titles matched by the compiled query, in rank order; [] for an empty query. */
function search(q: string): string[] {
  const { match } = compileQuery(q);
  return match === null ? [] : titleQuery.all(match).map((r) => r.title);
}

/** Titles matched, in title order: for tests about which rows match, not how they rank. */
const found = (q: string) => search(q).sort();

describe("hostile input never reaches FTS5 as a syntax error", () => {
  const hostile = [
    '"',
    '""',
    '"a',
    'a"b"c',
    "-",
    "--x",
    "*",
    "a*b",
    "NEAR(a b)",
    "NEAR(quick fox, 2)",
    "a:b",
    "title:x",
    "title:quick",
    "^x",
    "(a OR",
    "a AND",
    "OR",
    "AND",
    "NOT",
    "AND OR NOT",
    "a OR OR b",
    "a AND AND b",
    "{a b}",
    "{title body}: quick",
    "\\",
    "'",
    "%",
    "_",
    "\u0000",
    "a\u0000b",
    "quick\u0000fox",
    "x".repeat(10_000),
    "quick ".repeat(2_000),
    '"quick brown'.repeat(500),
    "🙂",
    "🙂 quick 👍🏽",
    "C++",
    "node.js",
    "#tag",
    "[[link]]",
    "![[img.png|100]]",
    "DEC-0045",
    "v3.6.7",
    "someone@example.com",
    "Folder/Sub/Note.md",
    "../x",
    "日本語",
    "ラーメン",
    "한국어",
    '-"quick fox"',
    '+"quick fox"',
    "+",
    "+-",
    "-+",
    "-*",
    "+*",
    '-""',
    "**",
    "***a",
    '"a"*',
    '"a" *',
    "a**",
    '"" ""',
    '"\'"',
    "))((",
    "(",
    ")",
    "-(",
    "a -",
    "a +",
    "+a -a",
    ":",
    ";",
    "^",
    "quick*fox",
    "*fox",
    "a\tb\nc",
    "\u3000quick\u3000",
    "\ud800",
    "a\ud83d",
    "\u0301",
    "\ue000",
    "a\u200bb",
    "SELECT * FROM t; --",
    "' OR 1=1 --",
    "NEAR",
    "near(",
    "*quick",
    'qu"ick',
    "1e10",
    "0x1F",
    "🙂*",
    "#",
    "[[",
  ];
  for (const q of hostile) {
    test(`${JSON.stringify(q.length > 40 ? `${q.slice(0, 40)}…` : q)}`, () => {
      const compiled = compileQuery(q);
      expect(compiled.empty).toBe(compiled.match === null);
      if (compiled.match !== null) expect(() => titleQuery.all(compiled.match!)).not.toThrow();
    });
  }
  test("there are at least 40 hostile cases", () => expect(hostile.length).toBeGreaterThanOrEqual(40));
});

describe("semantics against real FTS5", () => {
  test("plain words are OR-ed and notes matching more words rank first", () => {
    expect(search("quick fox")).toEqual(["Alpha", "Beta"]); // Alpha has both words
    expect(search("bread fox")).toContain("Alpha");
    expect(search("bread fox")).toContain("Beta");
  });

  test("a phrase matches only adjacent words", () => {
    expect(search('"quick brown"')).toEqual(["Alpha"]);
    expect(search('"brown quick"')).toEqual([]);
    expect(search('"quick lunch"')).toEqual(["Beta"]);
  });

  test("an unclosed quote closes at the end", () => {
    expect(search('"quick brown')).toEqual(["Alpha"]);
  });

  test("exclusion removes rows", () => {
    expect(search("quick -fox")).toEqual(["Beta"]);
    expect(search('quick -"lazy dog"')).toEqual(["Beta"]);
    expect(found('quick -"dog lazy"')).toEqual(["Alpha", "Beta"]); // the phrase is not in Alpha
    expect(search("quick -fox -bread")).toEqual([]);
  });

  test("prefix works for words and phrases", () => {
    expect(search("config*")).toEqual(["Prefix"]);
    expect(search("config")).toEqual([]);
    expect(search('"quick br"*')).toEqual(["Alpha"]);
  });

  test("ids, versions, emails and dotted names rank their exact spelling first", () => {
    expect(search("DEC-0045")).toEqual(["Decision"]);
    expect(search("dec-0045")).toEqual(["Decision"]);
    expect(search("v3.6.7")[0]).toBe("Release");
    expect(search("v3.6.8")[0]).toBe("Next release");
    expect(search("someone@example.com")).toEqual(["Contact"]);
    expect(search("node.js")).toEqual(["Contact"]);
  });

  test("+required items must all match; optional ones only rank", () => {
    expect(found("+quick fox")).toEqual(["Alpha", "Beta"]);
    expect(search("+quick +fox")).toEqual(["Alpha"]);
    expect(search("+bread fox")).toEqual(["Beta"]); // fox is optional, bread is required
    expect(search('+"quick brown" lunch')).toEqual(["Alpha"]);
  });

  test("optional items still lift the rows that contain them", () => {
    expect(search("+quick lunch")).toEqual(["Beta", "Alpha"]);
    expect(search("+quick dog")).toEqual(["Alpha", "Beta"]);
  });

  test("AND makes both neighbours required; OR is a no-op joiner", () => {
    expect(search("quick AND fox")).toEqual(["Alpha"]);
    expect(search("quick AND fox bread")).toEqual(["Alpha"]);
    expect(search("fox OR bread")).toEqual(search("fox bread"));
    expect(compileQuery("fox or bread").match).toBe('"fox" OR "bread"'); // lower-case "or" is a word, and a stopword
    expect(search("-fox AND quick")).toEqual(["Beta"]);
  });

  test("operators typed as text are just text", () => {
    expect(search("NEAR(quick fox)")).toEqual(["Alpha", "Beta"]); // Alpha has both words
    expect(found("title:quick")).toEqual(["Alpha", "Beta"]); // words, not a column filter: no title has "quick"
    expect(found("(quick")).toEqual(["Alpha", "Beta"]);
  });

  test("diacritics and case fold", () => {
    expect(search("cafe creme")).toEqual(["Cafe"]);
    expect(search("RÉSUMÉ")).toEqual(["Cafe"]);
  });

  test("a whole CJK run matches through FTS5, a word inside it only via the cjk list", () => {
    expect(search("日本語のテキスト")).toEqual(["Japanese"]);
    expect(search("日本語")).toEqual([]);
    expect(compileQuery("日本語").cjk).toEqual(["日本語"]);
  });
});

describe("query parsing rules", () => {
  test("a hyphenated word matches its words apart too, and the phrase ranks first", () => {
    expect(search("non-small-cell")).toEqual(["Hyphen", "Apart"]);
    expect(compileQuery("non-small-cell").match).toBe('"non" OR "small" OR "cell" OR "non-small-cell" OR "nonsmallcell"');
  });

  test("split words drop stopwords and lone letters; the phrase keeps them", () => {
    expect(compileQuery("state-of-the-art").match).toBe('"state" OR "art" OR "state-of-the-art" OR "stateoftheart"');
    expect(compileQuery("x-ray").match).toBe('"ray" OR "x-ray" OR "xray"');
  });

  test("a hyphenated word also finds its spelling without the hyphen", () => {
    expect(search("birth-weight")).toEqual(["Joined"]);
    expect(search("GATA-3")).toEqual(["Joined"]);
    // Only hyphens join: a decimal point or a comma between digits is not a compound.
    expect(compileQuery("-0.5 degrees").match).toBe('"0" OR "5" OR "-0.5" OR "degrees"');
    expect(compileQuery("1,000").match).toBe('"1" OR "000" OR "1,000"');
  });

  test("a name glued to its number also finds it written apart", () => {
    expect(search("Bcl2")).toEqual(["Dashed"]);
    expect(search("covid19")).toEqual(["Dashed"]);
    expect(compileQuery("Bcl2").match).toBe('"Bcl2" OR "Bcl 2"');
    // A single letter before a number is one name (p53, v3): nobody writes it apart.
    expect(compileQuery("p53").match).toBe('"p53"');
  });

  test("a Greek letter also finds its name, and a name its letter", () => {
    expect(search("IFN-γ")).toEqual(["Greek"]);
    expect(found("TNF-alpha")).toEqual(["Alpha", "Greek"]); // "TNFα" is one token: the joined form finds it
    expect(compileQuery("IFN-γ").match).toBe('"IFN" OR "IFN-γ" OR "IFN-gamma" OR "IFNγ" OR "IFNgamma"');
    expect(compileQuery("β").match).toBe('"β" OR "beta"');
    expect(compileQuery("alphabet").match).toBe('"alphabet"'); // a name inside a word is not a letter
  });

  test("spelling variants are for bare words: operators and phrases keep their exact meaning", () => {
    expect(compileQuery("+birth-weight").match).toBe('"birth-weight"');
    expect(compileQuery('"IFN-γ"').match).toBe('"IFN-γ"');
    expect(compileQuery("Bcl2*").match).toBe('"Bcl2"*');
  });

  test("operators keep their exact meaning on split words", () => {
    expect(compileQuery("+non-small").match).toBe('"non-small"');
    expect(compileQuery("quick -non-small").match).toBe('("quick") NOT ("non-small")');
    expect(compileQuery('"non-small"').match).toBe('"non-small"');
    expect(compileQuery("non-sm*").match).toBe('"non-sm"*');
  });

  test("repeated words count once by their normalised form", () => {
    expect(compileQuery("languages; Languages languages").match).toBe('"languages"');
    expect(compileQuery("fox, fox. FOX bread").match).toBe(compileQuery("fox bread").match);
    expect(compileQuery("résumé resume RESUME").match).toBe('"résumé"');
    expect(compileQuery('"Quick, brown" "quick brown"').match).toBe('"Quick, brown"');
    expect(compileQuery("lazy +lazy;").match).toBe('"lazy"');
  });

  test("+ and - before a number are prose, not operators", () => {
    expect(compileQuery("score +1 year").match).toBe('"score" OR "1" OR "year"');
    expect(search("score -5")).toEqual(["Numbers"]);
    expect(compileQuery("-0.5 degrees").match).toBe('"0" OR "5" OR "-0.5" OR "degrees"');
    expect(compileQuery("+score -degrees").match).toBe('("score") NOT ("degrees")');
    expect(compileQuery('+"quick fox" -#tag').match).toBe('("quick fox") NOT ("tag")');
  });
});

describe("compileQuery output", () => {
  test("only exclusions, punctuation or operators is empty", () => {
    for (const q of ["", "   ", "-fox", '-"a b" -c', "-", "*", "🙂", '""', "OR", "AND OR", "+", "()"]) {
      expect(compileQuery(q)).toEqual({
        match: null,
        positive: null,
        required: [],
        optional: [],
        excluded: [],
        terms: [],
        cjk: [],
        excludedCjk: [],
        empty: true,
        named: "",
        dates: [],
      });
    }
  });

  test("every item is an FTS5 string literal with inner quotes doubled", () => {
    expect(compileQuery('say"hi').match).toBe('"say" OR "hi"');
    expect(compileQuery("it's").match).toBe(`"it's"`); // "it" is a stopword, a lone "s" says nothing
    expect(compileQuery('+"a ""b"').match).toBe('"a " AND ("b" OR "a ")');
  });

  test("required and optional: reqs AND (opts OR firstReq)", () => {
    expect(compileQuery("+a +b c d").match).toBe('"a" AND "b" AND ("c" OR "d" OR "a")');
    expect(compileQuery("+a +b").match).toBe('"a" AND "b"');
    expect(compileQuery("c d").match).toBe('"c" OR "d"');
  });

  test("exclusions: (positive) NOT (x OR y)", () => {
    expect(compileQuery('a -x -"y z"').match).toBe('("a") NOT ("x" OR "y z")');
    expect(compileQuery("+a b -x").match).toBe('("a" AND ("b" OR "a")) NOT ("x")');
  });

  test("prefix goes outside the literal", () => {
    expect(compileQuery("conf*").match).toBe('"conf"*');
    expect(compileQuery('"a b"*').match).toBe('"a b"*');
  });

  test("duplicates are folded; a required item wins over its optional copy", () => {
    expect(compileQuery("Foo foo").match).toBe('"Foo"');
    expect(compileQuery("foo +FOO").match).toBe('"FOO"');
  });

  test("terms are the lowercased words of positive items", () => {
    expect(compileQuery('Quick "Brown Fox" -lazy conf* DEC-0045').terms).toEqual(["quick", "brown", "fox", "conf", "dec", "0045", "dec0045"]);
    expect(compileQuery("don't stop").terms).toEqual(["don", "t", "stop"]);
  });

  test("cjk lists the CJK runs of positive items only", () => {
    expect(compileQuery("日本語のテキスト ラーメン 한국어 -中文 abc").cjk).toEqual(["日本語のテキスト", "ラーメン", "한국어"]);
    expect(compileQuery("東京abc").cjk).toEqual(["東京"]);
    expect(compileQuery("東京").match).toBe('"東京"');
  });

  test("NUL and other control characters separate words", () => {
    expect(compileQuery("quick\u0000fox").match).toBe('"quick" OR "fox"');
    expect(compileQuery('"quick\u0000fox"').match).toBe('"quick fox"');
  });

  test("a huge query is bounded", () => {
    const many = Array.from({ length: 500 }, (_, i) => `w${i}`).join(" ");
    const match = compileQuery(many).match!;
    expect(match.split(" OR ").length).toBe(64);
  });
});
