import { compileLinearRegex, linearRegexError } from "../core/linear-regex.ts";

/**
 * Caller patterns (a JSON Schema `pattern` of ai_extract, a field pattern of ai_metadata) are
 * matched against what a model wrote, on the server's one event loop: a backtracking engine would
 * let one request stall every other (`^(a+)+$` over 20 model values blocked the server for 32 s).
 * They run in re2js, a pure-JavaScript port of RE2 whose matching is linear in the input
 * (docs/decisions.md, "Caller patterns run in a linear-time engine"), compiled by the core every
 * linear-time pattern of indx shares (src/core/linear-regex.ts). Patterns are written in
 * ECMAScript syntax and translated; what RE2 cannot do in linear time (backreferences,
 * lookahead, lookbehind) is refused when the pattern is checked, before any model call.
 */
export interface LinearPattern {
  /** Whether the pattern matches anywhere in `text` (JSON Schema's `pattern`, RegExp.prototype.test). */
  test(text: string): boolean;
}

/** JSON Schema patterns have no flags and, unlike Bases, no lookbehind. */
const SCHEMA_PATTERN = { lookbehind: false } as const;

/** Why a pattern cannot run in the linear-time engine, or null when it can. */
export function linearPatternProblem(pattern: string): string | null {
  const why = linearRegexError(pattern, "", SCHEMA_PATTERN);
  if (why === null) return null;
  return `The pattern cannot run in indx's linear-time regular expression engine (no backreferences or lookaround): ${why.replace(/^error parsing regexp: /, "")}.`;
}

/** The pattern compiled for linear-time matching; throws when it uses what RE2 lacks. */
export function compileLinear(pattern: string): LinearPattern {
  const re = compileLinearRegex(pattern, "", SCHEMA_PATTERN);
  return { test: (text) => re.test(text) };
}

/**
 * The engine ajv compiles `pattern` keywords with (its option code.regExp). Ajv keys its cache of
 * compiled patterns by their toString(), so each says which pattern it is.
 */
export const ajvLinearRegExp = Object.assign(
  (pattern: string, _flags: string): LinearPattern & { toString(): string } => ({ ...compileLinear(pattern), toString: () => `re2js:${pattern}` }),
  { code: "re2js" },
);
