/**
 * unicode61 (remove_diacritics 2), the tokenizer of the full-text index, as JavaScript follows it
 * to mark matches (src/index/lexical/marks.ts). ASCII is simple: letters and digits are token characters
 * and fold to lower case. Every other character is asked of FTS5 itself, once per process: its
 * tables are Unicode 6.1's (a newer emoji modifier is a token character to it), it drops
 * diacritics only from Latin letters and case-folds µ to μ. A character is followed here when
 * FTS5 reads it as a separator, or as a letter or digit of the Basic Multilingual Plane that it
 * indexes as one character; a text with any other character is left to FTS5, and so is a text
 * where FTS5's stemmer could cut a character in two (see `MAY_CUT`).
 */

const NON_ASCII = /\P{ASCII}/u;
const EACH_NON_ASCII = /\P{ASCII}/gu;

/** Token characters are followed up to U+FFFF: one UTF-16 unit each, so a folded text keeps every offset. */
const BMP_END = 0x10000;

/**
 * FTS5's stemmer works on UTF-8 bytes (src/index/lexical/porter.ts). The one rule that can cut a
 * character is step 1b's: after it strips -ed or -ing, a doubled final consonant loses one, and
 * the last two bytes of a three-byte character (U+0800 and up) can be equal. A text where such a
 * character meets -ed or -ing goes to FTS5 instead.
 */
const MAY_CUT = /[\u0800-\uffff](?:ed|ing)/i;

/**
 * The token characters of a folded text (no u flag needed): every character outside ASCII left
 * in it is one, since separators fold to spaces.
 */
const TOKEN_CHAR = "[A-Za-z0-9\u0080-\uffff]";

/** What FTS5 makes of "q" + c + "q" for each character c: the terms of each, in order. */
export type AskFts5 = (probes: string[]) => string[][];

export class Unicode61 {
  /** What each character outside ASCII is: "" a separator, else the character indexed in its place; null when not followed. */
  private readonly chars = new Map<string, string | null>();

  constructor(private readonly ask: AskFts5) {}

  /** Asks FTS5 about the characters of these texts it has not seen yet, in one pass. */
  learn(texts: string[]): void {
    const unknown = new Set<string>();
    for (const text of texts) if (NON_ASCII.test(text)) for (const [c] of text.matchAll(EACH_NON_ASCII)) if (!this.chars.has(c)) unknown.add(c);
    this.askAbout(unknown);
  }

  /**
   * fold() of each text, the characters none of them had shown before learned first: one pass
   * over texts whose characters are known (learn() then fold() read each text twice).
   */
  foldAll(texts: string[]): (string | null)[] {
    const unknown = new Set<string>();
    const folded = texts.map((text) => this.foldKnown(text, unknown));
    if (unknown.size) this.askAbout(unknown);
    return texts.map((text, i) => (folded[i] === undefined ? this.fold(text) : folded[i]));
  }

  /**
   * The text with each character as unicode61 indexes it, one UTF-16 unit for one so offsets
   * hold (a separator outside ASCII becomes spaces), or null when it holds a character not
   * followed here or one FTS5's stemmer could cut. Characters must have been learned.
   */
  fold(text: string): string | null {
    return this.foldKnown(text, null) ?? null;
  }

  /** fold(), or undefined when the text has a character not learned yet (added to `unknown`, when given). */
  private foldKnown(text: string, unknown: Set<string> | null): string | null | undefined {
    if (!NON_ASCII.test(text)) return text;
    let followed = true;
    let learned = true;
    let wide = false;
    const folded = text.replace(EACH_NON_ASCII, (c) => {
      const read = this.chars.get(c);
      if (read === undefined) {
        learned = false;
        unknown?.add(c);
      } else if (read === null) followed = false;
      else if (read.charCodeAt(0) >= 0x800) wide = true;
      return read ?? c;
    });
    if (!learned && unknown) return undefined;
    // MAY_CUT needs a token character from U+0800 up: most texts with one are CJK, most others have none.
    return followed && learned && !(wide && MAY_CUT.test(folded)) ? folded : null;
  }

  private askAbout(unknown: Set<string>): void {
    if (!unknown.size) return;
    const chars = [...unknown];
    const terms = this.ask(chars.map((c) => `q${c}q`));
    for (const [i, c] of chars.entries()) {
      const read = readProbe(terms[i] ?? []);
      // A separator becomes spaces, one per UTF-16 unit; a token character must take the room it had.
      this.chars.set(c, read === "" ? " ".repeat(c.length) : read !== null && read.length === c.length ? read : null);
    }
  }

  /** A regular-expression class of the characters of a folded text's tokens (no u flag needed; ASCII in either case). */
  tokenCharClass(): string {
    return TOKEN_CHAR;
  }
}

/** "" for a separator (q and q apart), the one character it became inside "q…q", else null. */
function readProbe(terms: string[]): string | null {
  if (terms.length === 2 && terms[0] === "q" && terms[1] === "q") return "";
  if (terms.length !== 1 || !terms[0]!.startsWith("q") || !terms[0]!.endsWith("q")) return null;
  const inner = [...terms[0]!.slice(1, -1)];
  if (inner.length !== 1) return null;
  const c = inner[0]!;
  return c.codePointAt(0)! < BMP_END && /[\p{L}\p{N}]/u.test(c) ? c : null;
}
