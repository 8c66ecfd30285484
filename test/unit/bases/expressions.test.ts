import { afterAll, describe, expect, test } from "bun:test";
import { toCell } from "../../../src/bases/cells.ts";
import { ExpressionError } from "../../../src/bases/expr/errors.ts";
import { parseExpression } from "../../../src/bases/expr/parser.ts";
import { DateValue, DurationValue, ErrorValue, FileValue, LinkValue, MarkupValue, type Value } from "../../../src/bases/values.ts";
import { MemoryVault } from "../../support/bases.ts";

// A zone with daylight saving: Europe/Berlin moves to summer time on 2025-03-30 at 02:00. Set
// before the fixture vault parses its local times.
const savedTz = process.env.TZ;
process.env.TZ = "Europe/Berlin";
afterAll(() => {
  process.env.TZ = savedTz;
});

const vault = new MemoryVault({
  "Books/Dune.md": {
    properties: {
      title: "Dune",
      price: 12,
      age: 4,
      rating: 4.5,
      done: false,
      author: new LinkValue("Frank Herbert", "People/Frank Herbert.md", null),
      genres: ["scifi", "classic"],
      nested: null,
      "Property Name": "spaced",
    },
    tags: ["book", "Project/Alpha"],
    links: ["Frank Herbert", "Missing note"],
    embeds: ["cover.jpg"],
    size: 2048,
    mtime: "2025-03-29T10:00:00",
  },
  "People/Frank Herbert.md": { properties: { born: 1920 }, links: ["Dune"] },
  "Books.base": {},
  "cover.jpg": { size: 5000 },
});

const ev = (src: string, opts: Parameters<MemoryVault["eval"]>[2] = {}) => vault.eval(src, "Books/Dune.md", opts);
/** The typed JSON form of a result, which is what callers see. */
const cell = (src: string, opts: Parameters<MemoryVault["eval"]>[2] = {}) => toCell(ev(src, opts));
const isError = (v: Value) => v instanceof ErrorValue;

describe("literals and operators", () => {
  test("literals: numbers, strings in both quotes with escapes, booleans, null, lists, objects, regexes", () => {
    expect(ev("42")).toBe(42);
    expect(ev("1.5e2")).toBe(150);
    expect(ev(`'it\\'s' + "\\"q\\""`)).toBe(`it's"q"`);
    expect(ev("true && !false")).toBe(true);
    expect(ev("null")).toBe(null);
    expect(ev("[1, 'a', [2]]")).toEqual([1, "a", [2]]);
    expect(cell('{"a": 1, b: [true]}')).toEqual({
      type: "object",
      value: { a: { type: "number", value: 1 }, b: { type: "list", value: [{ type: "boolean", value: true }] } },
    });
    expect(ev("/ab+c/gi")).toBeInstanceOf(RegExp);
  });

  test("precedence follows JavaScript: || < && < equality < comparison < + - < * / % < unary < postfix", () => {
    expect(ev("1 + 2 * 3")).toBe(7);
    expect(ev("(1 + 2) * 3")).toBe(9);
    expect(ev("10 - 4 - 3")).toBe(3);
    expect(ev("2 * 3 % 4")).toBe(2);
    expect(ev("1 + 2 > 2 == true")).toBe(true);
    expect(ev("false && false || true")).toBe(true);
    expect(ev("true || false && false")).toBe(true);
    expect(ev("-2 * -3")).toBe(6);
    expect(ev("!price > 5")).toBe(false);
    expect(ev("-price.abs()")).toBe(-12);
    expect(ev("[1,2,3][1] + 1")).toBe(3);
  });

  test("&& and || give an operand, as in JavaScript", () => {
    expect(ev("nested || 'fallback'")).toBe("fallback");
    expect(ev("price && title")).toBe("Dune");
  });

  test("arithmetic with a missing property is null; with a wrong type, an error value", () => {
    expect(ev("missing + 1")).toBe(null);
    expect(ev("price * missing")).toBe(null);
    expect(isError(ev('"text" * 2'))).toBe(true);
    expect(isError(ev("true + 1"))).toBe(true);
    expect(isError(ev("price / 0"))).toBe(true);
    expect(isError(ev("price % 0"))).toBe(true);
    expect(isError(ev("-'a'"))).toBe(true);
    // An error propagates through further arithmetic and is falsy.
    expect(isError(ev('("x" * 2) + 1'))).toBe(true);
    expect(ev('if("x" * 2, "yes", "no")')).toBe("no");
  });

  test("+ concatenates strings and lists", () => {
    expect(ev('"a" + 1 + true')).toBe("a1true");
    expect(ev("[1] + [2, 3]")).toEqual([1, 2, 3]);
    expect(isError(ev("[1] + 'a'"))).toBe(true);
  });

  test("comparisons on numbers, strings, dates and date strings; equality on any value", () => {
    expect(ev("price >= 12 && price < 13")).toBe(true);
    expect(ev('"abc" < "abd"')).toBe(true);
    expect(ev('date("2025-07-19") > "2025-07-18"')).toBe(true);
    expect(ev("missing > 3")).toBe(false);
    expect(ev("missing < 3")).toBe(false);
    expect(ev("missing == null")).toBe(true);
    expect(ev('title != "done"')).toBe(true);
    expect(ev('missing != "done"')).toBe(true);
    expect(ev("[1, [2]] == [1, [2]]")).toBe(true);
    expect(ev('{"a": 1} == {"a": 1}')).toBe(true);
    expect(ev('"1" == 1')).toBe(false);
  });

  test('property ids: bare names, note.x, note["x y"], file.x', () => {
    expect(ev("price")).toBe(12);
    expect(ev("note.price")).toBe(12);
    expect(ev('note["Property Name"]')).toBe("spaced");
    expect(ev("PRICE")).toBe(12);
    expect(ev("missing")).toBe(null);
    // Names of Object.prototype are not properties, methods or fields.
    expect(ev("constructor")).toBe(null);
    expect(ev("file.constructor")).toBe(null);
    expect(ev("missing.deeper.still")).toBe(null);
    expect(ev("note.missing.length")).toBe(null);
  });
});

describe("syntax errors and bounds", () => {
  const failure = (src: string) => {
    try {
      ev(src);
    } catch (err) {
      if (err instanceof ExpressionError) return { message: err.message, at: err.at, bound: err.bound };
      throw err;
    }
    throw new Error(`no error for ${src}`);
  };

  test("a syntax error names the offset of the problem", () => {
    expect(failure("price +")).toMatchObject({ at: 7, bound: false });
    expect(failure("(1 + 2")).toMatchObject({ at: 6 });
    expect(failure('"open')).toMatchObject({ message: "Unterminated string", at: 0 });
    expect(failure("1 # 2")).toMatchObject({ message: "Unexpected character '#'", at: 2 });
    expect(failure("/[/")).toMatchObject({ at: 0 });
  });

  test("unknown functions and methods, and wrong argument counts of functions, are compile errors", () => {
    expect(failure("nosuch(1)").message).toContain("Unknown function 'nosuch'");
    expect(failure("title.nosuch()").message).toContain("Unknown method 'nosuch'");
    expect(failure("if(true)").message).toContain("if() takes 2 to 3 arguments");
    expect(failure("formula").message).toContain("formula");
  });

  test("length and nesting are bounded", () => {
    expect(failure(`${"1+".repeat(6000)}1`)).toMatchObject({ bound: true });
    expect(failure(`${"(".repeat(100)}1${")".repeat(100)}`)).toMatchObject({ bound: true });
    expect(() => parseExpression(`${"(".repeat(60)}1${")".repeat(60)}`)).not.toThrow();
  });
});

describe("global functions", () => {
  test("if() with and without a false branch", () => {
    expect(ev('if(price > 10, "dear", "cheap")')).toBe("dear");
    expect(ev('if(price > 100, "dear")')).toBe(null);
  });

  test("date(), duration(), now(), today()", () => {
    const now = "2025-06-15T12:30:00";
    expect(cell('date("2025-01-01 12:00:00")')).toEqual({ type: "datetime", value: "2025-01-01T12:00:00" });
    expect(cell('date("2025-12-31")')).toEqual({ type: "date", value: "2025-12-31" });
    expect(cell('date("2025-12-31T23:59:59Z")')).toEqual({ type: "datetime", value: "2026-01-01T00:59:59" });
    expect(isError(ev('date("not a date")'))).toBe(true);
    expect(isError(ev('date("2025-02-30")'))).toBe(true);
    expect(cell("now()", { now })).toEqual({ type: "datetime", value: "2025-06-15T12:30:00" });
    expect(cell("today()", { now })).toEqual({ type: "date", value: "2025-06-15" });
    expect(cell('duration("1d") * 2')).toEqual({ type: "duration", value: 2 * 86_400_000 });
    expect(isError(ev('duration("soon")'))).toBe(true);
  });

  test("number(): dates to epoch ms, booleans to 1/0, bad strings an error", () => {
    expect(ev('number("42.5")')).toBe(42.5);
    expect(ev("number(true)")).toBe(1);
    expect(ev('number(date("2025-01-01"))')).toBe(new Date(2025, 0, 1).getTime());
    expect(isError(ev('number("forty")'))).toBe(true);
    expect(ev("number(missing)")).toBe(null);
  });

  test("list(), max(), min(), random()", () => {
    expect(ev("list(price)")).toEqual([12]);
    expect(ev("list(genres)")).toEqual(["scifi", "classic"]);
    expect(ev("list(missing)")).toEqual([]);
    expect(ev("max(1, price, 3)")).toBe(12);
    expect(ev("min(4, price, 3)")).toBe(3);
    expect(ev("min(missing)")).toBe(null);
    const r = ev("random()");
    expect(typeof r === "number" && r >= 0 && r < 1).toBe(true);
  });

  test("link(), file(), image(), icon(), html(), escapeHTML()", () => {
    expect(cell('link("Frank Herbert")')).toEqual({ type: "link", value: { path: "People/Frank Herbert.md", display: "Frank Herbert", resolved: true } });
    expect(cell('link("Nowhere", "shown")')).toEqual({ type: "link", value: { path: "Nowhere", display: "shown", resolved: false } });
    expect(ev('file("People/Frank Herbert.md")')).toBeInstanceOf(FileValue);
    expect(ev('file("Frank Herbert").file.path')).toBe("People/Frank Herbert.md");
    expect(ev('file("Frank Herbert").path')).toBe("People/Frank Herbert.md");
    expect(ev('file("nope.md")')).toBe(null);
    expect(ev('image("cover.jpg")')).toEqual(new MarkupValue("image", "cover.jpg"));
    expect(cell('icon("book")')).toEqual({ type: "icon", value: "book" });
    expect(cell('html("<b>x</b>")')).toEqual({ type: "html", value: "<b>x</b>" });
    expect(ev(`escapeHTML("<a href='x'>&</a>")`)).toBe("&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;");
  });
});

describe("legacy global functions (before Obsidian 1.9.2 made them methods)", () => {
  test("empty(), notEmpty(), not(): the filter of kepano's Shows.base, not(empty(note.last))", () => {
    expect(ev("empty(missing)")).toBe(true);
    expect(ev('empty("")')).toBe(true);
    expect(ev("empty([])")).toBe(true);
    expect(ev("empty({})")).toBe(true);
    expect(ev("empty(genres)")).toBe(false);
    expect(ev("empty(price)")).toBe(false);
    expect(ev("notEmpty(genres)")).toBe(true);
    expect(ev("not(empty(note.title))")).toBe(true);
    expect(ev("not(empty(note.missing))")).toBe(false);
  });

  test("contains(), containsAll(), containsAny(), containsNone() on text and lists; absent targets", () => {
    expect(ev('contains(title, "un")')).toBe(true);
    expect(ev('contains(genres, "scifi")')).toBe(true);
    expect(ev('containsAll(genres, "scifi", "classic")')).toBe(true);
    expect(ev('containsAny(genres, "poetry", "classic")')).toBe(true);
    expect(ev('containsNone(genres, "poetry", "drama")')).toBe(true);
    expect(ev('containsNone(genres, "scifi")')).toBe(false);
    expect(ev('contains(missing, "x")')).toBe(false);
    expect(ev('containsNone(missing, "x")')).toBe(true);
    expect(isError(ev('contains(price, "1")'))).toBe(true);
  });

  test("inFolder(file.file, folder), linksTo(file.file, note), dateBefore() and its kind", () => {
    expect(ev('inFolder(file.file, "Books")')).toBe(true);
    expect(ev('inFolder(file.file, "People")')).toBe(false);
    expect(ev('linksTo(file.file, "Frank Herbert")')).toBe(true);
    expect(ev('linksTo(file.file, "Nobody")')).toBe(false);
    expect(ev('dateBefore(date("2025-01-01"), date("2025-02-01"))')).toBe(true);
    expect(ev('dateAfter(date("2025-01-01"), date("2025-02-01"))')).toBe(false);
    expect(ev('dateOnOrAfter(date("2025-01-01"), date("2025-01-01"))')).toBe(true);
    expect(ev("dateEquals(file.mtime, missing)")).toBe(null);
  });
});

describe("methods of any value", () => {
  test("isTruthy(), isType(), toString(), isEmpty() on values and null", () => {
    expect(ev("price.isTruthy()")).toBe(true);
    expect(ev('"".isTruthy()')).toBe(false);
    expect(ev("[].isTruthy()")).toBe(false);
    expect(ev("{}.isTruthy()")).toBe(false);
    expect(ev("missing.isTruthy()")).toBe(false);
    expect(ev('price.isType("number") && title.isType("string") && genres.isType("list") && author.isType("link")')).toBe(true);
    expect(ev('missing.isType("null")')).toBe(true);
    expect(ev("price.toString()")).toBe("12");
    expect(ev("genres.toString()")).toBe("scifi, classic");
    expect(ev("missing.isEmpty()")).toBe(true);
    expect(ev("missing.toString()")).toBe("");
    // Any other method on null is null, not an error: a missing property never breaks a filter.
    expect(ev('missing.contains("x")')).toBe(null);
    expect(isError(ev("price.lower()"))).toBe(true);
  });
});

describe("string methods", () => {
  test("every string method", () => {
    expect(ev("title.length")).toBe(4);
    expect(ev('title.contains("un")')).toBe(true);
    expect(ev('title.contains("UN")')).toBe(false);
    expect(ev('title.containsAll("D", "e")')).toBe(true);
    expect(ev('title.containsAny("x", "e")')).toBe(true);
    expect(ev('title.startsWith("Du") && title.endsWith("ne")')).toBe(true);
    expect(ev('"".isEmpty()')).toBe(true);
    expect(ev('"MiXed".lower()')).toBe("mixed");
    expect(ev('"the lord of the rings".title()')).toBe("The Lord Of The Rings");
    expect(ev('"  pad  ".trim()')).toBe("pad");
    expect(ev('"a-b-c".replace("-", "+")')).toBe("a+b+c");
    expect(ev('"a1b22".replace(/(\\d+)/, "<$1>")')).toBe("a<1>b22");
    expect(ev('"a1b22".replace(/\\d/g, "")')).toBe("ab");
    expect(ev('"ab".repeat(3)')).toBe("ababab");
    expect(isError(ev('"ab".repeat(-1)'))).toBe(true);
    expect(ev('"abc".reverse()')).toBe("cba");
    expect(ev('"abcdef".slice(1, 3)')).toBe("bc");
    expect(ev('"abcdef".slice(-2)')).toBe("ef");
    expect(ev('"a,b,c".split(",")')).toEqual(["a", "b", "c"]);
    expect(ev('"a,b,c".split(",", 2)')).toEqual(["a", "b"]);
    expect(ev('"a1b2c".split(/\\d/)')).toEqual(["a", "b", "c"]);
    expect(isError(ev('"a".split(1)'))).toBe(true);
  });
});

describe("number methods", () => {
  test("every number method", () => {
    expect(ev("(-3.5).abs()")).toBe(3.5);
    expect(ev("(3.2).ceil()")).toBe(4);
    expect(ev("(3.8).floor()")).toBe(3);
    expect(ev("(2.5).round()")).toBe(3);
    expect(ev("(-2.5).round()")).toBe(-3);
    expect(ev("(1.005).round(2)")).toBe(1.01);
    expect(ev("(price / age).toFixed(2)")).toBe("3.00");
    expect(isError(ev('price.toFixed("x")'))).toBe(true);
    expect(ev("price.isEmpty()")).toBe(false);
  });
});

describe("list methods", () => {
  test("every list method", () => {
    expect(ev("genres.length")).toBe(2);
    expect(ev('genres.contains("scifi")')).toBe(true);
    expect(ev('genres.containsAll("scifi", "classic")')).toBe(true);
    expect(ev('genres.containsAny("drama", "classic")')).toBe(true);
    expect(ev("[1, 2, 3, 4].filter(value % 2 == 0)")).toEqual([2, 4]);
    expect(ev("[10, 20].map(value + index)")).toEqual([10, 21]);
    expect(ev("[1, 2, 3].reduce(acc + value, 0)")).toBe(6);
    expect(ev("[[1, [2]], 3].flat()")).toEqual([1, 2, 3]);
    expect(ev('genres.join(" / ")')).toBe("scifi / classic");
    expect(ev("[].isEmpty() && !genres.isEmpty()")).toBe(true);
    expect(ev("[1, 2].reverse()")).toEqual([2, 1]);
    expect(ev("[1, 2, 3].slice(1)")).toEqual([2, 3]);
    expect(ev('[3, 1, 2, null, "b", "a"].sort()')).toEqual([1, 2, 3, "a", "b", null]);
    expect(ev("[1, 1, 2].unique()")).toEqual([1, 2]);
    expect(ev("[1, 2, 3, 4].sum()")).toBe(10);
    expect(ev("[1, 2, 3, 4].mean()")).toBe(2.5);
    expect(ev("[3, 1, 2].median()")).toBe(2);
    expect(ev("[2, 4, 4, 4, 5, 5, 7, 9].stddev()")).toBe(2);
    expect(ev("[3, 1, 2].min()")).toBe(1);
    expect(ev("[3, 1, 2].max()")).toBe(3);
    expect(cell('[date("2025-01-02"), date("2024-05-01")].earliest()')).toEqual({ type: "date", value: "2024-05-01" });
    expect(cell('[date("2025-01-02"), date("2024-05-01")].latest()')).toEqual({ type: "date", value: "2025-01-02" });
    expect(ev("[].mean()")).toBe(null);
  });

  test("filter/map see the row's properties beside value and index", () => {
    expect(ev("[5, 15].filter(value > price)")).toEqual([15]);
  });
});

describe("date and duration methods", () => {
  test("fields, date(), format(), time(), relative(), isEmpty()", () => {
    const d = 'date("2025-03-09T14:05:07")';
    expect(ev(`[${d}.year, ${d}.month, ${d}.day, ${d}.hour, ${d}.minute, ${d}.second, ${d}.millisecond]`)).toEqual([2025, 3, 9, 14, 5, 7, 0]);
    expect(cell(`${d}.date()`)).toEqual({ type: "date", value: "2025-03-09" });
    expect(ev(`${d}.format("YYYY-MM-DD HH:mm")`)).toBe("2025-03-09 14:05");
    expect(ev(`${d}.format("dddd, MMMM Do YYYY, h:mm a [at] Z")`)).toBe("Sunday, March 9th 2025, 2:05 pm at +01:00");
    expect(ev(`${d}.time()`)).toBe("14:05:07");
    expect(ev('date("2025-06-12T12:00:00").relative()', { now: "2025-06-15T12:00:00" })).toBe("3 days ago");
    expect(ev('date("2025-06-15T14:00:00").relative()', { now: "2025-06-15T12:00:00" })).toBe("in 2 hours");
    expect(ev(`${d}.isEmpty()`)).toBe(false);
  });

  test("date arithmetic with duration strings in every unit", () => {
    const base = 'date("2025-01-31")';
    expect(cell(`${base} + "1M"`)).toEqual({ type: "date", value: "2025-02-28" });
    expect(cell(`${base} + "1y"`)).toEqual({ type: "date", value: "2026-01-31" });
    expect(cell(`${base} + "2 weeks"`)).toEqual({ type: "date", value: "2025-02-14" });
    expect(cell(`${base} - "1 day"`)).toEqual({ type: "date", value: "2025-01-30" });
    expect(cell(`${base} + "2h"`)).toEqual({ type: "datetime", value: "2025-01-31T02:00:00" });
    expect(cell(`${base} + "30m"`)).toEqual({ type: "datetime", value: "2025-01-31T00:30:00" });
    expect(cell(`${base} + "90s"`)).toEqual({ type: "datetime", value: "2025-01-31T00:01:30" });
    expect(cell('now() - "2h"', { now: "2025-06-15T12:00:00" })).toEqual({ type: "datetime", value: "2025-06-15T10:00:00" });
    expect(cell('today() + "7d"', { now: "2025-06-15T12:00:00" })).toEqual({ type: "date", value: "2025-06-22" });
    expect(isError(ev(`${base} + "soon"`))).toBe(true);
  });

  test("across the daylight-saving change a day keeps the wall clock and an hour is exact", () => {
    // 2025-03-30 02:00 CET jumps to 03:00 CEST: that calendar day is 23 hours long.
    expect(cell('date("2025-03-29T12:00:00") + "1d"')).toEqual({ type: "datetime", value: "2025-03-30T12:00:00" });
    expect(cell('date("2025-03-29T12:00:00") + "24h"')).toEqual({ type: "datetime", value: "2025-03-30T13:00:00" });
    expect(ev('(date("2025-03-31") - date("2025-03-30")).hours')).toBe(23);
    expect(cell('date("2025-03-30T01:30:00") + "1h"')).toEqual({ type: "datetime", value: "2025-03-30T03:30:00" });
    // Back to winter time on 2025-10-26: a 25-hour day.
    expect(ev('(date("2025-10-27") - date("2025-10-26")).hours')).toBe(25);
    expect(cell('date("2025-10-25") + "2d"')).toEqual({ type: "date", value: "2025-10-27" });
  });

  test("date − date is a duration with fields in each unit that compares as milliseconds", () => {
    expect(ev('(date("2025-01-03") - date("2025-01-01")).days')).toBe(2);
    expect(ev('(date("2025-01-01T12:00:00") - date("2025-01-01")).days')).toBe(0.5);
    expect(ev('(date("2025-06-15") - date("1990-06-16")).years.floor()')).toBe(34);
    expect(ev('(date("2025-01-15") - date("2025-01-01")).weeks')).toBe(2);
    expect(ev('(now() + "1d") - now()')).toBeInstanceOf(DurationValue);
    expect(ev('((now() + "1d") - now()) == duration("1d")')).toBe(true);
    expect(ev('((now() + "1d") - now()) > 86399999')).toBe(true);
    expect(ev('(date("2025-01-01T10:00:00") - date("2025-01-01T08:30:00")).minutes')).toBe(90);
    expect(ev('(date("2025-01-01T10:00:00") - date("2025-01-01T08:30:00")).seconds')).toBe(5400);
    expect(ev('(date("2025-01-01T10:00:00") - date("2025-01-01T08:30:00")).milliseconds')).toBe(5_400_000);
  });

  test("a date equals a date-time on the same day; date-times compare exactly", () => {
    expect(ev('date("2025-01-01") == date("2025-01-01T18:00:00")')).toBe(true);
    expect(ev('date("2025-01-01T10:00:00") == date("2025-01-01T18:00:00")')).toBe(false);
    expect(ev('date("2025-01-01") == "2025-01-01"')).toBe(true);
  });
});

describe("file, link and object methods", () => {
  test("file fields", () => {
    expect(ev("[file.name, file.basename, file.path, file.folder, file.ext, file.size]")).toEqual(["Dune.md", "Dune", "Books/Dune.md", "Books", "md", 2048]);
    expect(vault.eval("file.folder", "Books.base")).toBe("/");
    expect(cell("file.mtime")).toEqual({ type: "datetime", value: "2025-03-29T10:00:00" });
    expect(cell("file.ctime")).toEqual({ type: "datetime", value: "2025-01-01T09:00:00" });
    expect(ev("file.tags")).toEqual(["#book", "#Project/Alpha"]);
    expect(ev("file.links.length")).toBe(3);
    expect(ev("file.embeds.map(value.toString())")).toEqual(["cover.jpg"]);
    expect(ev("file.backlinks.length")).toBe(1);
    expect(ev("file.properties.price")).toBe(12);
    expect(ev("file.file.name")).toBe("Dune.md");
    expect(vault.eval("file.properties.isEmpty()", "cover.jpg")).toBe(true);
  });

  test("hasTag (any of, nested, case-insensitive), hasLink, hasProperty, inFolder, asLink", () => {
    expect(ev('file.hasTag("project")')).toBe(true);
    expect(ev('file.hasTag("#PROJECT/alpha")')).toBe(true);
    expect(ev('file.hasTag("proj")')).toBe(false);
    expect(ev('file.hasTag("x", "book")')).toBe(true);
    expect(ev('file.hasLink("Frank Herbert")')).toBe(true);
    expect(ev('file.hasLink(file("People/Frank Herbert.md"))')).toBe(true);
    expect(ev('file.hasLink(link("Frank Herbert"))')).toBe(true);
    expect(ev('file.hasLink("Books.base")')).toBe(false);
    expect(ev('file.hasProperty("price") && !file.hasProperty("nope")')).toBe(true);
    expect(ev('file.hasProperty("nested")')).toBe(true);
    expect(ev('file.inFolder("Books") && file.inFolder("/") && !file.inFolder("Book")')).toBe(true);
    expect(cell('file.asLink("Shown")')).toEqual({ type: "link", value: { path: "Books/Dune.md", display: "Shown", resolved: true } });
  });

  test("links: asFile(), linksTo(), equality with files and with link text", () => {
    expect(ev("author.asFile().properties.born")).toBe(1920);
    expect(ev('link("Nowhere").asFile()')).toBe(null);
    expect(ev('author.linksTo(file("People/Frank Herbert.md"))')).toBe(true);
    expect(ev('author == file("People/Frank Herbert.md")')).toBe(true);
    expect(ev('author == link("People/Frank Herbert")')).toBe(true);
    expect(ev('author == "[[Frank Herbert]]"')).toBe(true);
    expect(ev('link("Nowhere") == link("Nowhere")')).toBe(true);
    expect(ev('link("Nowhere") == link("Elsewhere")')).toBe(false);
    // A link takes the string methods of its text.
    expect(ev('file.embeds[0].containsAny("jpg", "png")')).toBe(true);
  });

  test("object and regexp methods", () => {
    expect(ev('{"a": 1, "b": 2}.keys()')).toEqual(["a", "b"]);
    expect(ev('{"a": 1, "b": 2}.values()')).toEqual([1, 2]);
    expect(ev("{}.isEmpty()")).toBe(true);
    expect(ev("/^du/i.matches(title)")).toBe(true);
    // A global regex has no memory between calls.
    expect(ev('[/u/g.matches("u"), /u/g.matches("u")]')).toEqual([true, true]);
  });
});

describe("this", () => {
  test("this is the base file or the embedding note: this.file, this.note.x and this.x", () => {
    expect(vault.eval("this.file.name", "Books/Dune.md", { thisPath: "Books.base" })).toBe("Books.base");
    expect(vault.eval("this.born", "Books/Dune.md", { thisPath: "People/Frank Herbert.md" })).toBe(1920);
    expect(vault.eval("this.note.born", "Books/Dune.md", { thisPath: "People/Frank Herbert.md" })).toBe(1920);
    expect(vault.eval("author == this", "Books/Dune.md", { thisPath: "People/Frank Herbert.md" })).toBe(true);
    expect(vault.eval("list(author).contains(this)", "Books/Dune.md", { thisPath: "People/Frank Herbert.md" })).toBe(true);
    expect(vault.eval("file.hasLink(this.file)", "Books/Dune.md", { thisPath: "People/Frank Herbert.md" })).toBe(true);
    expect(vault.eval("this.file.hasLink(file)", "Books/Dune.md", { thisPath: "People/Frank Herbert.md" })).toBe(true);
  });
});

describe("formulas", () => {
  test('formula.x and formula["x y"] are evaluated lazily', () => {
    const formulas = { ppu: "(price / age).toFixed(2)", "Price twice": "price * 2", chained: 'formula["Price twice"] + 1' };
    expect(ev("formula.ppu", { formulas })).toBe("3.00");
    expect(ev("formula.chained", { formulas })).toBe(25);
    expect(ev("formula.unknown", { formulas })).toBe(null);
  });
});

test("unused value classes stay distinguishable by type", () => {
  expect(toCell(new DateValue(0, false)).type).toBe("date");
  expect(toCell(new ErrorValue("x"))).toEqual({ type: "error", value: "x" });
});
