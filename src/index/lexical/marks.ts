import { porterStem } from "./porter.ts";
import { FTS_COLUMNS, type FtsColumn, type NoteHighlight, type SearchDocument } from "./search-document.ts";
import type { Unicode61 } from "./unicode61.ts";

/**
 * What FTS5's highlight() marks in the notes search shows, found without FTS5 where that is
 * exact: for the expressions the query compiler writes (src/search/query.ts) and for documents
 * whose characters src/index/lexical/unicode61.ts follows, with the stems of src/index/lexical/porter.ts. Other
 * documents (CJK, combining marks, newer symbols inside words) go through the scratch FTS5 table,
 * which is exact for all text. Feeding that table was the largest part of showing a page of
 * results (docs/decisions.md, "Marking matches without FTS5").
 */

type Doc = SearchDocument & { fileId: number };

export interface Phrase {
  /** Its tokens' stems. */
  terms: string[];
  /** The last term is a prefix (`"…"*`). */
  prefix: boolean;
}

export type Expr = { kind: "phrase"; phrase: Phrase } | { kind: "and" | "or"; of: Expr[] } | { kind: "not"; of: [Expr, Expr] };

/**
 * Marks of the documents this can mark exactly (`marked`: only those that match, as highlight()'s
 * query returns them) and the documents left for FTS5 (`rest`), or null when the expression is
 * not one it reads (then every document goes to FTS5).
 */
export function markMatches(match: string, docs: Doc[], unicode61: Unicode61): { marked: NoteHighlight[]; rest: Doc[] } | null {
  const columns = (doc: Doc) => [doc.title, doc.aliases, doc.tags, doc.headings, doc.body];
  // Folding the documents learns their characters, and the query's, before the query is read.
  const folded = unicode61.foldAll([match, ...docs.flatMap(columns)]);
  const expr = parseExpression(match, unicode61);
  if (expr === null) return null;
  const phrases: Phrase[] = [];
  collectPhrases(expr, phrases);
  const tokenChar = unicode61.tokenCharClass();
  const finder = candidateFinder(phrases, tokenChar);
  const excluded = excludedPhrases(expr);
  const adjacency = phrases.some((p) => p.terms.length > 1);
  // A word's stem, once per page: the notes shown repeat the words that matched.
  const stems = new Map<string, string>();
  const stem = (word: string) => {
    let s = stems.get(word);
    if (s === undefined) stems.set(word, (s = porterStem(word.toLowerCase())));
    return s;
  };
  const marked: NoteHighlight[] = [];
  const rest: Doc[] = [];
  for (const [d, doc] of docs.entries()) {
    const texts = folded.slice(1 + d * FTS_COLUMNS.length, 1 + (d + 1) * FTS_COLUMNS.length);
    if (!texts.every((t) => t !== null)) {
      rest.push(doc);
      continue;
    }
    const found = texts.map((text) => (text ? instances(tokenPositions(text, finder, tokenChar, stem, adjacency), phrases) : []));
    const present = new Set(found.flatMap((column) => column.map((i) => i.phrase)));
    if (!holds(expr, (p) => present.has(p))) continue;
    const shown = found.map((column) => column.filter((i) => !excluded.has(i.phrase)));
    marked.push({ fileId: doc.fileId, columns: FTS_COLUMNS.filter((_, c) => shown[c]!.length > 0) as FtsColumn[], spans: mergedSpans(shown[4]!) });
  }
  return { marked, rest };
}

// --- The expression -------------------------------------------------------------------------

/** An FTS5 string literal, `*` after it for a prefix. */
const LITERAL = /^"((?:[^"]|"")*)"(\*?)/;
const KEYWORD = /^(AND|OR|NOT)(?=[\s()"]|$)/;

/**
 * Reads an expression of string literals, AND, OR, NOT and brackets (FTS5's precedence: NOT, then
 * AND, then OR). Null for anything else (column filters, NEAR, bare words, a literal with a
 * character src/index/lexical/unicode61.ts does not follow), and for an AND under an OR or a NOT under
 * anything: there FTS5 may leave unmarked a phrase the note has, when its own branch did not
 * match.
 */
export function parseExpression(match: string, unicode61: Unicode61): Expr | null {
  const tokens: (string | Phrase)[] = [];
  let s = match.trim();
  while (s.length) {
    const lit = LITERAL.exec(s);
    const kw = lit ? null : KEYWORD.exec(s);
    if (lit) {
      const phrase = literalPhrase(lit[1]!.replaceAll('""', '"'), lit[2] === "*", unicode61);
      if (phrase === null) return null;
      tokens.push(phrase);
      s = s.slice(lit[0].length);
    } else if (kw) {
      tokens.push(kw[1]!);
      s = s.slice(kw[0].length);
    } else if (s[0] === "(" || s[0] === ")") {
      tokens.push(s[0]);
      s = s.slice(1);
    } else return null;
    s = s.trimStart();
  }
  let at = 0;
  const peek = () => tokens[at];
  const primary = (): Expr | null => {
    const t = tokens[at++];
    if (t === "(") {
      const inner = or();
      return inner !== null && tokens[at++] === ")" ? inner : null;
    }
    return typeof t === "object" ? { kind: "phrase", phrase: t } : null;
  };
  const not = (): Expr | null => {
    let left = primary();
    while (left !== null && peek() === "NOT") {
      at++;
      const right = primary();
      left = right === null ? null : { kind: "not", of: [left, right] };
    }
    return left;
  };
  const chain = (kind: "and" | "or", keyword: string, next: () => Expr | null) => (): Expr | null => {
    const first = next();
    if (first === null || peek() !== keyword) return first;
    const of = [first];
    while (peek() === keyword) {
      at++;
      const item = next();
      if (item === null) return null;
      of.push(item);
    }
    return { kind, of };
  };
  const and = chain("and", "AND", not);
  const or = chain("or", "OR", and);
  const expr = or();
  return expr !== null && at === tokens.length && readable(expr, true) ? expr : null;
}

/** An AND only where no OR is above it, a NOT only at the top with phrases or ORs of phrases on its right. */
function readable(e: Expr, top: boolean, underOr = false): boolean {
  switch (e.kind) {
    case "phrase":
      return true;
    case "and":
      return !underOr && e.of.every((c) => readable(c, false, false));
    case "or":
      return e.of.every((c) => readable(c, false, true));
    case "not":
      return top && readable(e.of[0], false) && onlyPhrases(e.of[1]);
  }
}

const onlyPhrases = (e: Expr): boolean => e.kind === "phrase" || (e.kind === "or" && e.of.every(onlyPhrases));

/** A literal's tokens as the index holds them, or null when it has a character not followed here (or no token). */
function literalPhrase(text: string, prefix: boolean, unicode61: Unicode61): Phrase | null {
  const terms = termsOf(text, unicode61);
  return terms ? { terms, prefix } : null;
}

/** The terms the index makes of a text (folded, stemmed), or null when it has a character not followed here (or no token). Its characters must have been learned. */
export function termsOf(text: string, unicode61: Unicode61): string[] | null {
  const words = unicode61.fold(text)?.match(new RegExp(`${unicode61.tokenCharClass()}+`, "g"));
  return words ? words.map((w) => porterStem(w.toLowerCase())) : null;
}

export function collectPhrases(e: Expr, out: Phrase[]): void {
  if (e.kind === "phrase") out.push(e.phrase);
  else for (const c of e.of) collectPhrases(c, out);
}

/** The phrases on the right of the top NOT: a note that matches has none of them. */
function excludedPhrases(e: Expr): Set<Phrase> {
  const out: Phrase[] = [];
  if (e.kind === "not") collectPhrases(e.of[1], out);
  return new Set(out);
}

export function holds(e: Expr, has: (p: Phrase) => boolean): boolean {
  switch (e.kind) {
    case "phrase":
      return has(e.phrase);
    case "and":
      return e.of.every((c) => holds(c, has));
    case "or":
      return e.of.some((c) => holds(c, has));
    case "not":
      return holds(e.of[0], has) && !holds(e.of[1], has);
  }
}

// --- The text ----------------------------------------------------------------------------------

/**
 * Finds the tokens that can stem to a query term: those starting with a term less its last
 * letter (src/index/lexical/match-windows.ts says why that holds for every Porter rule). Other tokens
 * are never stemmed; they only keep candidates apart.
 */
function candidateFinder(phrases: Phrase[], token: string): RegExp {
  const keys = [...new Set(phrases.flatMap((p) => p.terms.map((t) => t.slice(0, -1))))];
  const starts = keys.includes("") ? "" : `(?:${keys.join("|")})`;
  return new RegExp(`(?<!${token})${starts}${token}${starts ? "*" : "+"}`, "gi");
}

interface Instance {
  phrase: Phrase;
  /** The candidate tokens it covers (positions count only candidates; see `tokenPositions`). */
  first: number;
  last: number;
  start: number;
  end: number;
}

interface Token {
  stem: string;
  start: number;
  end: number;
  /** Equal for two candidates only when no other token lies between them. */
  position: number;
}

/**
 * The candidate tokens of a text. Their positions keep adjacency when a phrase needs it (+1 next
 * to the previous candidate, +2 with another token between); without one, any increasing
 * numbering does, since single words never overlap.
 */
function tokenPositions(text: string, finder: RegExp, tokenChar: string, stem: (word: string) => string, adjacency: boolean): Token[] {
  const tokens: Token[] = [];
  const anyToken = adjacency ? new RegExp(tokenChar, "g") : null;
  finder.lastIndex = 0;
  for (let m = finder.exec(text); m; m = finder.exec(text)) {
    const prev = tokens[tokens.length - 1];
    let position = tokens.length;
    if (prev && anyToken) {
      anyToken.lastIndex = prev.end;
      const between = anyToken.exec(text);
      position = prev.position + (between === null || between.index >= m.index ? 1 : 2);
    }
    tokens.push({ stem: stem(m[0]), start: m.index, end: m.index + m[0].length, position });
  }
  return tokens;
}

/** Every place a phrase occurs among the tokens, in order of its first token. */
function instances(tokens: Token[], phrases: Phrase[]): Instance[] {
  const out: Instance[] = [];
  for (let i = 0; i < tokens.length; i++)
    for (const phrase of phrases) {
      const n = phrase.terms.length;
      let j = 0;
      for (; j < n; j++) {
        const t = tokens[i + j];
        if (t === undefined || t.position !== tokens[i]!.position + j) break;
        const term = phrase.terms[j]!;
        if (!(phrase.prefix && j === n - 1 ? t.stem.startsWith(term) : t.stem === term)) break;
      }
      if (j === n) out.push({ phrase, first: tokens[i]!.position, last: tokens[i + n - 1]!.position, start: tokens[i]!.start, end: tokens[i + n - 1]!.end });
    }
  return out;
}

/**
 * highlight()'s runs: instances that overlap (share a token) are one run; instances that only
 * touch are two (FTS5's fts5CInstIterNext).
 */
function mergedSpans(found: Instance[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let last = -1;
  for (const i of found) {
    const open = spans[spans.length - 1];
    if (open && i.first <= last) {
      if (i.last > last) [last, open.end] = [i.last, i.end];
      continue;
    }
    spans.push({ start: i.start, end: i.end });
    last = i.last;
  }
  return spans;
}
