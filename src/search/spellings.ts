/**
 * Other spellings of a typed word that the tokenizer (unicode61) turns into other tokens, so BM25
 * sees them as different words: `birth-weight` and `birthweight`, `Bcl2` and `BCL-2`, `IFN-γ` and
 * `IFN-gamma`. Writers use both forms of each, often in the same vault (docs/decisions.md,
 * "Spelling variants of a query word").
 */

const PART = "[\\p{L}\\p{N}\\p{M}]+";
/** Words joined by hyphens only: a dot or a comma between digits is a number (`0.5`, `1,000`), not a compound. */
const HYPHENATED = new RegExp(`^${PART}(?:-${PART})+$`, "u");
/** A name of two or more letters glued to its number (`Bcl2`, `covid19`, `miR7a`); `p53` or `v3` is one name. */
const NAME_NUMBER = /^(\p{L}{2,})(\p{N}[\p{L}\p{N}]*)$/u;
const EDGE_PUNCTUATION = /^\p{P}+|\p{P}+$/gu;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

const GREEK_NAMES: Record<string, string> = {
  α: "alpha",
  β: "beta",
  γ: "gamma",
  δ: "delta",
  ε: "epsilon",
  ζ: "zeta",
  η: "eta",
  θ: "theta",
  ι: "iota",
  κ: "kappa",
  λ: "lambda",
  μ: "mu",
  ν: "nu",
  ξ: "xi",
  ο: "omicron",
  π: "pi",
  ρ: "rho",
  σ: "sigma",
  ς: "sigma",
  τ: "tau",
  υ: "upsilon",
  φ: "phi",
  χ: "chi",
  ψ: "psi",
  ω: "omega",
};
const GREEK_LETTERS = new Map(Object.entries(GREEK_NAMES).flatMap(([letter, name]) => (letter === "ς" ? [] : [[name, letter] as const])));

/**
 * The other spellings of one bare word as typed (each a phrase of one or more words), none when
 * it has no other: Greek letters spelled out or a spelled-out letter as the letter, each hyphenated
 * form also without its hyphens, and a name written apart from its number.
 */
export function spellingVariants(typed: string): string[] {
  const word = typed.replace(EDGE_PUNCTUATION, "");
  const greek = otherGreekSpelling(word);
  const forms = greek === null ? [word] : [word, greek];
  const variants = greek === null ? [] : [greek];
  for (const form of forms) if (HYPHENATED.test(form)) variants.push(form.replaceAll("-", ""));
  const glued = NAME_NUMBER.exec(word);
  if (glued) variants.push(`${glued[1]} ${glued[2]}`);
  return variants;
}

/** `IFN-γ` → `IFN-gamma`, `TNF-alpha` → `TNF-α`; null when the word has neither a letter nor a whole-word name. */
function otherGreekSpelling(word: string): string | null {
  const other = word.replace(WORD, (w) => {
    const lower = w.toLowerCase();
    return GREEK_LETTERS.get(lower) ?? [...w].map((c) => GREEK_NAMES[c.toLowerCase()] ?? c).join("");
  });
  return other === word ? null : other;
}
