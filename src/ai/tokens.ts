/**
 * A conservative token estimate (docs/decisions.md, "AI token budgets"): BPE tokenizers of current
 * models spend about 4 characters per token on English and 1–2 tokens per CJK character. Counting
 * 3 ASCII characters per token and 1.5 tokens per other character over-counts both, so a prompt
 * the estimate lets through always fits the model's real limit. No tokenizer library is bundled:
 * each model family has its own, and none is exact for the others.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    // A surrogate pair is one character: count it at its high half only.
    else if (c < 0xdc00 || c > 0xdfff) other++;
  }
  return Math.ceil(ascii / 3 + other * 1.5);
}
