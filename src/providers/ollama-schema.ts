/**
 * Ollama turns a structured-output schema into a llama.cpp grammar, and llama.cpp refuses a
 * grammar whose repetition, times the elements repeated, reaches 2,000 ("number of repetitions
 * exceeds sane defaults"; a bound just under it is accepted but makes sampling slow). A string's
 * `maxLength: n` becomes `char{0,n}` (one element), an array's `maxItems: n` becomes
 * `("," item){0,n-1}` (three elements). The schema sent to Ollama keeps each bound whose
 * repetition stays under half the limit (builds differ in how they count) and leaves the others
 * out; the runtime checks the reply against the whole schema on the way back (src/ai/session.ts),
 * so a bound the grammar did not enforce is still enforced (docs/decisions.md, "Ollama: num_ctx
 * sized to the prompt").
 */
export const GRAMMAR_REPETITION_LIMIT = 2000;
const SAFE_REPETITIONS = GRAMMAR_REPETITION_LIMIT / 2;

type Json = Record<string, unknown>;

/** The repetition cost llama.cpp counts for a schema keyword's bound, or 0 when the keyword is not a bound. */
export function repetitionCost(keyword: string, bound: unknown): number {
  if (typeof bound !== "number" || !Number.isFinite(bound)) return 0;
  if (keyword === "maxLength" || keyword === "minLength") return bound;
  if (keyword === "maxItems" || keyword === "minItems") return 3 * Math.max(0, bound - 1);
  return 0;
}

/** A copy of the schema without the bounds a llama.cpp grammar would refuse or crawl on. */
export function grammarSafeSchema(schema: Json): Json {
  return strip(schema) as Json;
}

function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (repetitionCost(key, value) >= SAFE_REPETITIONS) continue;
    // Inside `properties` the keys are property names, not keywords: only the values are schemas.
    out[key] = key === "properties" && typeof value === "object" && value !== null ? mapValues(value as Json) : strip(value);
  }
  return out;
}

const mapValues = (o: Json): Json => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, strip(v)]));
