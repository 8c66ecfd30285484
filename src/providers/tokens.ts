/**
 * A conservative token estimate: it must not count fewer tokens than the tokenizers of the models
 * indx talks to (OpenAI's cl100k/o200k, Anthropic's, Llama/Qwen BPEs), so a prompt that fits the
 * estimate fits the model. The weights and what they were checked against are in
 * docs/decisions.md ("AI token budgets"). Counting by character class keeps it fast and
 * dependency-free; the cost of over-counting is only a smaller prompt.
 */

/** ASCII letters per token: English averages ~4.5 in cl100k, random-case runs ~3. */
const LATIN_CHARS_PER_TOKEN = 3;
/** Capitals per token: all-caps runs (acronyms, random strings) merge less than words. */
const CAPITALS_PER_TOKEN = 2;
/** Digits per token: cl100k groups three, older BPEs fewer. */
const DIGITS_PER_TOKEN = 2;
/** Han, kana, Hangul and CJK punctuation: real text is 1.1–1.5 tokens a character, common characters alone 2. */
const CJK_TOKENS_PER_CHAR = 2;
/** Other non-ASCII characters, per UTF-8 byte: byte-level BPEs fall back to bytes for rare scripts. */
const OTHER_TOKENS_PER_BYTE = 0.75;

enum Run {
  None,
  Lower,
  Upper,
  Digit,
  Space,
  Punct,
}

export function estimateTokens(text: string): number {
  let tokens = 0;
  let run = Run.None;
  let length = 0;
  let newlines = 0;
  const endRun = () => {
    if (run === Run.Lower) tokens += Math.ceil(length / LATIN_CHARS_PER_TOKEN);
    else if (run === Run.Upper) tokens += Math.ceil(length / CAPITALS_PER_TOKEN);
    else if (run === Run.Digit) tokens += Math.ceil(length / DIGITS_PER_TOKEN);
    // ASCII punctuation merges unpredictably (`**`, `---`): one token a character is the safe side.
    else if (run === Run.Punct) tokens += length;
    // Spaces ride on the next word; blank lines and indentation are tokens of their own.
    else if (run === Run.Space) tokens += Math.ceil(newlines / 2) + (length - newlines > 1 ? 1 : 0);
    run = Run.None;
    length = 0;
    newlines = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) {
      endRun();
      const codePoint = text.codePointAt(i) ?? c;
      if (codePoint > 0xffff) i++;
      tokens += isCjk(codePoint) ? CJK_TOKENS_PER_CHAR : utf8Bytes(codePoint) * OTHER_TOKENS_PER_BYTE;
      continue;
    }
    const kind = asciiRun(c);
    if (run === Run.Upper && kind === Run.Lower) {
      // "Word" is one piece; in "HTTPServer" or random text the last capital starts the next one.
      if (length > 1) {
        length--;
        endRun();
        length = 1;
      }
    } else if (kind !== run) endRun();
    run = kind;
    length++;
    if (c === 10) newlines++;
  }
  endRun();
  return Math.ceil(tokens);
}

function asciiRun(c: number): Run {
  if (c >= 97 && c <= 122) return Run.Lower;
  if (c >= 65 && c <= 90) return Run.Upper;
  if (c >= 48 && c <= 57) return Run.Digit;
  if (c === 32 || c === 9 || c === 10 || c === 13) return Run.Space;
  return Run.Punct;
}

function isCjk(c: number): boolean {
  return (
    (c >= 0x4e00 && c <= 0x9fff) || // CJK Unified Ideographs
    (c >= 0x3400 && c <= 0x4dbf) || // Extension A
    (c >= 0x20000 && c <= 0x3ffff) || // Extensions B and later
    (c >= 0xf900 && c <= 0xfaff) || // Compatibility Ideographs
    (c >= 0x3000 && c <= 0x30ff) || // CJK punctuation, Hiragana, Katakana
    (c >= 0x31f0 && c <= 0x31ff) || // Katakana extensions
    (c >= 0x1100 && c <= 0x11ff) || // Hangul Jamo
    (c >= 0x3130 && c <= 0x318f) || // Hangul compatibility Jamo
    (c >= 0xac00 && c <= 0xd7af) || // Hangul syllables
    (c >= 0xff00 && c <= 0xffef) // Half- and fullwidth forms
  );
}

function utf8Bytes(c: number): number {
  return c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/** ASCII characters per token in a typical count: compact JSON of English notes is 3.5–3.6 in o200k and cl100k (docs/decisions.md, "activate_context fills its budget"). */
const TYPICAL_ASCII_CHARS_PER_TOKEN = 3;

/**
 * A typical token count, for a budget an answer should fill rather than stay far under (an agent's
 * context, activate_context): ASCII at 3 characters a token, above what o200k and cl100k count for
 * compact JSON of notes (about 3.5), so an answer filled to it stays under the budget in those;
 * other characters as estimateTokens counts them (conservatively). estimateTokens, which must not
 * under-count any tokenizer, is about twice the real count for such text.
 */
export function typicalTokens(text: string): number {
  let ascii = 0;
  let other = "";
  for (const ch of text) {
    if (ch.charCodeAt(0) < 128) ascii++;
    else other += ch;
  }
  return Math.ceil(ascii / TYPICAL_ASCII_CHARS_PER_TOKEN) + (other === "" ? 0 : estimateTokens(other));
}
