/**
 * Regular expressions written in ECMAScript syntax, matched by re2js (a pure-JavaScript port of
 * RE2) in time linear in the text, so a backtracking pattern such as /(a+)+$/ cannot stall the
 * server's event loop. The one place indx compiles them: Bases expressions (src/bases/regex.ts)
 * and caller patterns of the AI operations (src/ai/linear-regex.ts) both come here
 * (docs/decisions.md, "Caller patterns run in a linear-time engine", "The cost of a base").
 */
import { RE2JS } from "re2js";

/** A compiled pattern: re2js's matcher, whose work is linear in the text. */
export type LinearRegex = RE2JS;

/** RE2's flags for a JavaScript regex's: i, m and s carry over; g is the caller's (replace all or one); u and d change nothing here. */
function flagsOf(flags: string): number {
  let f = RE2JS.LOOKBEHINDS;
  if (flags.includes("i")) f |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) f |= RE2JS.MULTILINE;
  if (flags.includes("s")) f |= RE2JS.DOTALL;
  return f;
}

/**
 * An ECMAScript pattern compiled for linear-time matching. Throws (re2js's error) when it needs
 * what RE2 cannot do in linear time: back-references, lookahead; `lookbehind` allows RE2's
 * bounded lookbehind, which Bases have always accepted.
 */
export function compileLinearRegex(source: string, flags = "", opts: { lookbehind?: boolean } = {}): LinearRegex {
  const f = flagsOf(flags);
  return RE2JS.compile(RE2JS.translateRegExp(source), opts.lookbehind === false ? f & ~RE2JS.LOOKBEHINDS : f);
}

/** Why a pattern cannot be compiled for linear-time matching (re2js's own words), or null when it can. */
export function linearRegexError(source: string, flags = "", opts: { lookbehind?: boolean } = {}): string | null {
  try {
    compileLinearRegex(source, flags, opts);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
