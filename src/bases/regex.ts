/**
 * Regular expressions of Bases run on RE2 (re2js, a pure-JavaScript port), whose matching time is
 * linear in the text: a backtracking pattern such as /(a+)+$/ over a note's name cannot stall the
 * server (docs/decisions.md, "The cost of a base"). The JavaScript RegExp still is the value
 * (printed, compared, typed as "regexp"); matching goes through its RE2 twin, compiled by the
 * core every linear-time pattern of indx shares (src/core/linear-regex.ts).
 */
import { compileLinearRegex, type LinearRegex, linearRegexError } from "../core/linear-regex.ts";

const twins = new WeakMap<RegExp, LinearRegex>();

/** Why RE2 cannot run this regex (a back-reference, a lookahead, the sticky flag), or null when it can. */
export function unsupportedRegex(source: string, flags: string): string | null {
  if (flags.includes("y") || flags.includes("v")) return `the ${flags.includes("y") ? "y" : "v"} flag is not supported`;
  const why = linearRegexError(source, flags);
  return why === null
    ? null
    : `it needs a feature that takes more than linear time to match (back-references, lookahead) or is not supported: ${why.slice(0, 120)}`;
}

function twin(re: RegExp): LinearRegex {
  let r = twins.get(re);
  if (!r) twins.set(re, (r = compileLinearRegex(re.source, re.flags)));
  return r;
}

/** Whether `re` matches anywhere in `text`. */
export function regexTest(re: RegExp, text: string): boolean {
  return twin(re).test(text);
}

/** String.prototype.replace with a regex: every match with the g flag, else the first; $1, $<name>, $& as in JavaScript. */
export function regexReplace(text: string, re: RegExp, replacement: string): string {
  const m = twin(re).matcher(text);
  return re.global ? m.replaceAll(replacement) : m.replaceFirst(replacement);
}

/** String.prototype.split with a regex: trailing empty strings kept, at most `limit` parts. */
export function regexSplit(text: string, re: RegExp, limit: number | null): string[] {
  const parts = twin(re).split(text, -1);
  return limit === null ? parts : parts.slice(0, Math.max(0, limit));
}
