import { CJK_RUN } from "../core/cjk.ts";
import { spellingVariants } from "./spellings.ts";
import { QUERY_STOPWORDS } from "./stopwords.ts";

/**
 * Turns what a user types into an FTS5 MATCH expression that can never be a syntax error.
 *
 * Accepted syntax: words, "quoted phrases", prefix* and "phrase"*, +required, -excluded, and the
 * upper-case keywords OR (a no-op: the default is already OR) and AND (makes both neighbours
 * required). Every item is emitted as an FTS5 string literal, so FTS5 operators, column filters,
 * brackets and stray quotes in user text are just text to the tokenizer.
 */
export interface CompiledQuery {
  /** FTS5 expression for `MATCH ?`, or null when nothing searchable is left. */
  match: string | null;
  /** `match` without the exclusions. */
  positive: string | null;
  /** The FTS5 literals of its items, by what they do. */
  required: string[];
  optional: string[];
  excluded: string[];
  /** Lowercased words of the positive items, for highlighting and snippets. */
  terms: string[];
  /** CJK runs of the positive items: unicode61 keeps a run as one token, so callers add a substring pass. */
  cjk: string[];
  /** CJK runs of the excluded items: a note with one inside its own runs is excluded too. */
  excludedCjk: string[];
  /** True when there is nothing positive to search for (only exclusions, punctuation or operators). */
  empty: boolean;
  /**
   * The positive items' text as typed, stopwords kept, without operators: what a note's title or
   * alias is compared with, whole, for the exact-name signal (docs/search.md, "Lexical ranking").
   */
  named: string;
  /** Date items (docs/search.md, "Dates"): their FTS5 literal and the days they span, YYYY-MM-DD. */
  dates: DateItem[];
}

export interface DateItem {
  literal: string;
  from: string;
  to: string;
}

type Mode = "optional" | "required" | "excluded";

interface Item {
  kind: "item";
  mode: Mode;
  text: string;
  prefix: boolean;
  /** Written as a "phrase" (or made one from a split word): never split into words. */
  quoted: boolean;
}

interface Keyword {
  kind: "keyword";
  word: "AND" | "OR";
}

/** Bounds the work a hostile query can cause; longer input is cut, extra items are ignored. */
const MAX_QUERY_CHARS = 4096;
const MAX_ITEMS = 64;

/** unicode61 indexes letters and digits; everything else (punctuation, symbols, emoji) separates tokens. */
const TOKEN_CHAR = /[\p{L}\p{N}]/u;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** The `s` of `it's`, the `x` of `x-ray`: a part that finds everything; the phrase keeps it. */
const LONE_LETTER = /^\p{L}\p{M}*$/u;

export function compileQuery(input: string): CompiledQuery {
  const typed = typedItems(input);
  const items = parseItems(typed);
  const groups: Record<Mode, Item[]> = { required: [], optional: [], excluded: [] };
  for (const item of items) groups[item.mode].push(item);
  const requiredItems = uniqueByKey(groups.required);
  const requiredKeys = new Set(requiredItems.map(itemKey));
  const required = requiredItems.map(toLiteral);
  const optional = uniqueByKey(groups.optional)
    .filter((i) => !requiredKeys.has(itemKey(i)))
    .map(toLiteral);
  const excluded = uniqueByKey(groups.excluded).map(toLiteral);

  const positive = positiveExpression(required, optional);
  if (positive === null)
    return { match: null, positive: null, required: [], optional: [], excluded: [], terms: [], cjk: [], excludedCjk: [], empty: true, named: "", dates: [] };
  // FTS5's NOT is binary: one positive side, one side listing everything excluded.
  const match = excluded.length ? `(${positive}) NOT (${excluded.join(" OR ")})` : positive;

  const positives = items.filter((i) => i.mode !== "excluded");
  return {
    match,
    positive,
    required,
    optional,
    excluded,
    terms: unique(positives.flatMap((i) => i.text.toLowerCase().match(WORD) ?? [])),
    cjk: unique(positives.flatMap((i) => i.text.match(CJK_RUN) ?? [])),
    excludedCjk: unique(groups.excluded.flatMap((i) => i.text.match(CJK_RUN) ?? [])),
    empty: false,
    dates: unique([...groups.required, ...groups.optional].filter((i) => i.quoted && dateSpan(i.text)).map(toLiteral)).flatMap((literal) => {
      const span = dateSpan(literal.slice(1, -1));
      return span ? [{ literal, ...span }] : [];
    }),
    named: typed.some((i) => i.prefix)
      ? ""
      : typed
          .filter((i) => i.mode !== "excluded")
          .map((i) => i.text)
          .join(" "),
  };
}

/** The query's items as typed, after keywords and the item bound. */
function typedItems(input: string): Item[] {
  return applyKeywords(lex(sanitize(input))).slice(0, MAX_ITEMS);
}

/** The items searched for: word splitting and stopword removal. */
function parseItems(typed: Item[]): Item[] {
  return dropStopwords(typed.flatMap(splitWord));
}

/**
 * A bare optional word that the tokenizer splits (`non-small-cell`, `languages;`, `node.js`)
 * becomes its words, each counted like any typed word, plus the whole as a phrase that lifts the
 * notes where they stand together. As one phrase alone, a hyphenated word missed every note that
 * writes it apart or in another form. A bare optional word also brings its other spellings
 * (src/search/spellings.ts) as optional phrases. Quoted phrases, prefixes and operator items keep
 * their exact meaning: the user spelled those out.
 */
function splitWord(item: Item): Item[] {
  if (item.quoted) return [item];
  // A date is one phrase: its numbers apart would match every note with a 05 or a 2024 in it.
  if (!item.prefix && dateSpan(item.text)) return [{ ...item, quoted: true }];
  const words = item.text.match(WORD) ?? [];
  if (item.prefix || item.mode !== "optional") return [words.length > 1 ? { ...item, quoted: true } : { ...item, text: words[0] ?? item.text }];
  const variants = spellingVariants(item.text).map((text) => ({ ...item, text, quoted: true }));
  if (words.length <= 1) return [{ ...item, text: words[0] ?? item.text }, ...variants];
  const meaningful = words.filter((w) => !LONE_LETTER.test(w));
  return [...meaningful.map((text) => ({ ...item, text })), { ...item, quoted: true }, ...variants];
}

/**
 * What makes two items the same to FTS5: the words as unicode61 folds them (case, diacritics),
 * whether it is a prefix, and nothing else, so `languages;` and `Languages` count once.
 */
function itemKey(item: Item): string {
  const words = item.text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().match(WORD) ?? [];
  return `${words.join(" ")}${item.prefix ? "*" : ""}`;
}

function uniqueByKey(items: Item[]): Item[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const key = itemKey(i);
    return !seen.has(key) && !!seen.add(key);
  });
}

/**
 * Optional items are OR-ed so BM25 ranks notes matching more of them first. With required items the
 * optional group gets the first required item as an extra alternative: it is true for every row
 * that passes, so optional items never filter, but FTS5's bm25() still scores every phrase in the
 * expression, so they keep lifting the rows that contain them. (Cost: that one required item is
 * counted twice in the score.)
 */
function positiveExpression(required: string[], optional: string[]): string | null {
  const [firstRequired] = required;
  if (firstRequired === undefined) return optional.length ? optional.join(" OR ") : null;
  const all = required.join(" AND ");
  if (!optional.length) return all;
  return `${all} AND (${[...optional, firstRequired].join(" OR ")})`;
}

/** FTS5 string literal: `"` doubled inside. A trailing `*` outside the quotes makes the last token a prefix. */
function toLiteral(item: Item): string {
  return `"${item.text.replaceAll('"', '""')}"${item.prefix ? "*" : ""}`;
}

/** NUL ends an FTS5 string early ("unterminated string"), so all control characters become spaces. */
function sanitize(input: string): string {
  return input
    .slice(0, MAX_QUERY_CHARS)
    .toWellFormed()
    .normalize("NFC")
    .replace(/\p{Cc}/gu, " ");
}

/**
 * Splits the query into items and keywords. A `"` always starts or ends a phrase (an unclosed one
 * runs to the end); `+`/`-` are modifiers only when glued to a word (startsOperand); a word ends at
 * whitespace or a quote. Only the exact upper-case AND / OR outside quotes are keywords.
 */
function lex(s: string): (Item | Keyword)[] {
  const out: (Item | Keyword)[] = [];
  let i = 0;
  while (i < s.length) {
    if (isSpace(s[i])) {
      i++;
      continue;
    }
    let mode: Mode = "optional";
    if ((s[i] === "+" || s[i] === "-") && startsOperand(s[i + 1])) {
      mode = s[i] === "+" ? "required" : "excluded";
      i++;
    }
    if (s[i] === '"') {
      const close = s.indexOf('"', i + 1);
      const end = close < 0 ? s.length : close;
      const text = s.slice(i + 1, end);
      i = end + 1;
      let prefix = false;
      while (s[i] === "*") {
        prefix = true;
        i++;
      }
      out.push({ kind: "item", mode, text, prefix, quoted: true });
      continue;
    }
    const start = i;
    while (i < s.length && !isSpace(s[i]) && s[i] !== '"') i++;
    const word = s.slice(start, i);
    if (mode === "optional" && (word === "AND" || word === "OR")) {
      out.push({ kind: "keyword", word });
      continue;
    }
    const text = word.replace(/\*+$/, "");
    out.push({ kind: "item", mode, text, prefix: text.length < word.length, quoted: false });
  }
  return out;
}

/**
 * Drops items with nothing to search for (FTS5 would see an empty phrase, which matches nothing and
 * would void an AND), then applies AND between its two neighbours. Dangling keywords are ignored.
 */
function applyKeywords(tokens: (Item | Keyword)[]): Item[] {
  const kept = tokens.filter((t) => t.kind === "keyword" || TOKEN_CHAR.test(t.text));
  kept.forEach((t, idx) => {
    if (t.kind !== "keyword" || t.word !== "AND") return;
    const before = kept[idx - 1];
    const after = kept[idx + 1];
    if (before?.kind !== "item" || after?.kind !== "item") return;
    // An excluded neighbour stays excluded: `-a AND b` means "b, without a".
    for (const side of [before, after]) if (side.mode === "optional") side.mode = "required";
  });
  return kept.filter((t): t is Item => t.kind === "item");
}

/**
 * Optional single words like "the" or "of" match almost every note: they add nothing to the
 * ranking (tiny IDF) but make FTS5 score every row. They are dropped unless nothing else is left;
 * phrases, prefixes and required or excluded words keep them.
 */
function dropStopwords(items: Item[]): Item[] {
  const isStop = (i: Item) => i.mode === "optional" && !i.prefix && QUERY_STOPWORDS.has(i.text.toLowerCase().replace(/^\p{P}+|\p{P}+$/gu, ""));
  const kept = items.filter((i) => !isStop(i));
  return kept.some((i) => i.mode !== "excluded") ? kept : items;
}

/**
 * `+` and `-` are operators only before a letter, a quote or a `#`: `+1`, `-5` and `-0.5` in prose
 * are numbers, not a required or excluded item.
 */
function startsOperand(ch: string | undefined): boolean {
  return ch !== undefined && (ch === '"' || ch === "#" || /\p{L}/u.test(ch));
}

function isSpace(ch: string | undefined): boolean {
  return ch !== undefined && /\s/u.test(ch);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

const DAY = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/;

/** The first and last day of `YYYY-MM-DD` or `YYYY-MM`, or null when it is not a real date. */
function daySpan(text: string): { from: string; to: string } | null {
  const m = DAY.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), m[3] === undefined ? null : Number(m[3])];
  if (month < 1 || month > 12) return null;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day !== null && (day < 1 || day > last)) return null;
  const ym = `${m[1]}-${m[2]}`;
  return day === null ? { from: `${ym}-01`, to: `${ym}-${String(last).padStart(2, "0")}` } : { from: text, to: text };
}

/**
 * The days a query item spans when it is a date: `2024-05-01`, a month `2024-05`, or a range of
 * either, `2024-05-01..2024-06-15` (from the first day of its start to the last of its end).
 * A year alone is not a date here: `2024` is as often a number.
 */
function dateSpan(text: string): { from: string; to: string } | null {
  const [a, b, ...rest] = text.split("..");
  if (rest.length || a === undefined) return null;
  const start = daySpan(a);
  if (b === undefined) return start;
  const end = daySpan(b);
  return start && end && start.from <= end.to ? { from: start.from, to: end.to } : null;
}

/** One +required or -excluded item, as the notes that have it are found. */
export interface FilterItem {
  /** Its FTS5 literal. */
  literal: string;
  /** Its CJK runs: a note with all of them inside its own runs has the item too (unicode61 keeps a run as one token). */
  cjk: string[];
}

export interface QueryParts {
  /** What a vector search embeds: the positive items' text, without operators or stopword removal. */
  text: string;
  /** A note must have each required item, and none excluded. */
  required: FilterItem[];
  excluded: FilterItem[];
}

/**
 * The query split for semantic and hybrid search: the syntax (+required, -excluded, phrases,
 * AND/OR) applies to the vector list too, so `-tomato` never brings tomato notes back by meaning.
 */
export function queryParts(input: string): QueryParts {
  const items = typedItems(input);
  const filter = (mode: Mode) => items.filter((i) => i.mode === mode).map((i) => ({ literal: toLiteral(i), cjk: unique(i.text.match(CJK_RUN) ?? []) }));
  return {
    text: items
      .filter((i) => i.mode !== "excluded")
      .map((i) => i.text)
      .join(" "),
    required: filter("required"),
    excluded: filter("excluded"),
  };
}
