/** One entry of ai.prices: "model=input/output", USD per million tokens. */
const PRICE_ENTRY = /^\s*([^=\s][^=]*?)\s*=\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/;

/** An ai.prices entry read, or null when it is not "model=input/output". */
export function parsePriceEntry(entry: string): { model: string; input: number; output: number } | null {
  // An entry is a line of a config file: a bound keeps the pattern's work small.
  if (entry.length > 500) return null;
  const m = PRICE_ENTRY.exec(entry);
  if (!m) return null;
  const [, model = "", input, output] = m;
  return { model, input: Number(input), output: Number(output) };
}

/** Why an ai.prices entry is refused, or null: checked when the key is set and when it is read (src/config/keys.ts). */
export function priceEntryProblem(entry: string): string | null {
  return parsePriceEntry(entry) ? null : 'is not "model=input/output" (USD per million tokens, e.g. "my-model=0.5/1.5")';
}
