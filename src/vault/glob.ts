import { IndxError } from "../core/errors.ts";
import { globScopeProblem } from "../core/glob-scope.ts";

// Path globs over vault-relative POSIX paths ("Projects/Plan.md"), always anchored at the vault root.
// (Line comments, because the examples below would end a block comment.)
//
// - `*` any characters except `/`; `?` one character except `/`.
// - `**` as a whole segment spans any number of folders, including none: `a/**/b` matches `a/b` and
//   `a/x/y/b`; `**/x.md` matches `x.md` at any depth; `Projects/**` matches everything inside
//   Projects/. Inside a segment (`**.md`) it is any characters, `/` included.
// - `[abc]`, `[a-z]`, `[!abc]` (or `[^abc]`): one character, never `/`.
// - `{a,b}`: alternation; alternatives may hold wildcards but not another `{`.
// - `\x` is a literal `x`; everything else is literal.
//
// There is no basename mode: a glob without `/` matches the whole path, so `*.md` matches only
// root-level notes (`**/*.md` matches at any depth). A single leading `/` is ignored, since paths
// are vault-relative anyway. Matching is case-sensitive unless `{ nocase: true }`.
export interface GlobOptions {
  nocase?: boolean;
}

const CACHE_LIMIT = 256;
/** Globs come from config and filters and repeat constantly; a Map in insertion order doubles as an LRU. */
const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string, options: GlobOptions = {}): RegExp {
  const key = (options.nocase ? "i:" : "s:") + glob;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const outside = globScopeProblem(glob);
  if (outside) throw new IndxError("validation_failed", `The path glob ${outside}.`, { reason: "outside_vault" });
  const re = compile(glob.startsWith("/") ? glob.slice(1) : glob, options.nocase ?? false);
  cache.set(key, re);
  if (cache.size > CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  return re;
}

export function matchesGlob(path: string, glob: string, options: GlobOptions = {}): boolean {
  return globToRegExp(glob, options).test(path);
}

function compile(glob: string, nocase: boolean): RegExp {
  const source = `^${translate(glob)}$`;
  try {
    return new RegExp(source, nocase ? "iu" : "u");
  } catch {
    // translate() escapes everything but class ranges, so only a reversed range like [z-a] lands here.
    throw new IndxError("validation_failed", "Invalid character range in a path glob.");
  }
}

function invalid(message: string, position: number): IndxError {
  // The glob itself is user input: report where it broke, never what it said.
  return new IndxError("validation_failed", message, { position });
}

function translate(glob: string): string {
  if (glob === "") throw invalid("A path glob may not be empty.", 0);
  let out = "";
  let inBraces = false;
  let braceStart = 0;
  let i = 0;
  while (i < glob.length) {
    const ch = glob.charAt(i);
    if (ch === "*") {
      let stars = 1;
      while (glob[i + stars] === "*") stars++;
      const star = stars === 1 ? { source: "[^/]*", end: i + 1 } : globstar(glob, i, stars);
      out += star.source;
      i = star.end;
      continue;
    }
    if (ch === "?") {
      out += "[^/]";
      i++;
      continue;
    }
    if (ch === "[") {
      const { source, end } = charClass(glob, i);
      out += source;
      i = end;
      continue;
    }
    if (ch === "{") {
      if (inBraces) throw invalid("Nested braces are not supported in a path glob.", i);
      inBraces = true;
      braceStart = i;
      out += "(?:";
      i++;
      continue;
    }
    if (inBraces && ch === ",") {
      out += "|";
      i++;
      continue;
    }
    if (inBraces && ch === "}") {
      inBraces = false;
      out += ")";
      i++;
      continue;
    }
    const escapedCode = ch === "\\" ? glob.codePointAt(i + 1) : undefined;
    if (escapedCode !== undefined) {
      const escaped = String.fromCodePoint(escapedCode);
      out += escapeLiteral(escaped);
      i += 1 + escaped.length;
      continue;
    }
    out += escapeLiteral(ch);
    i++;
  }
  if (inBraces) throw invalid("Unclosed '{' in a path glob.", braceStart);
  return out;
}

/** `**` spanning whole segments means "zero or more folders"; anywhere else it is any characters. */
function globstar(glob: string, at: number, stars: number): { source: string; end: number } {
  const end = at + stars;
  const startsSegment = at === 0 || glob[at - 1] === "/";
  // `**/` at the start or `/**/` in the middle: the folders and their slash are optional together,
  // so the slash is consumed here and `a/**/b` also matches `a/b`.
  if (startsSegment && glob[end] === "/") return { source: "(?:.*/)?", end: end + 1 };
  // A trailing `/**` (everything inside the folder), a lone `**`, or `**` inside a segment.
  return { source: ".*", end };
}

/** `[...]` → a RegExp class that never matches `/`. Returns where the glob continues. */
function charClass(glob: string, open: number): { source: string; end: number } {
  let i = open + 1;
  let negate = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  // A `]` right after the opening (or its `!`) is a literal member, as in POSIX.
  for (let first = true; i < glob.length && (first || glob[i] !== "]"); first = false) {
    let ch = glob.charAt(i);
    const escaped = ch === "\\" && i + 1 < glob.length;
    if (escaped) ch = glob.charAt(++i);
    // An unescaped `-` between two members is a range; anything else is escaped into a plain member.
    const isRange = ch === "-" && !escaped && !first && glob[i + 1] !== "]";
    body += isRange ? "-" : escapeClassMember(ch);
    i++;
  }
  if (i >= glob.length) throw invalid("Unclosed '[' in a path glob.", open);
  const source = negate ? `[^/${body}]` : `(?:(?!/)[${body}])`;
  return { source, end: i + 1 };
}

function escapeLiteral(ch: string): string {
  // Only RegExp syntax characters: the `u` flag rejects escapes of anything else.
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

function escapeClassMember(ch: string): string {
  return /[\\\][^-]/.test(ch) ? `\\${ch}` : ch;
}
