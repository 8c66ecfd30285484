import { describe, expect, test } from "bun:test";
import { IndxError } from "../../../src/core/errors.ts";
import { globToRegExp, matchesGlob } from "../../../src/vault/glob.ts";

/** Asserts which of `paths` a glob matches, and that it rejects the rest. */
function expectMatches(glob: string, yes: string[], no: string[], options = {}) {
  for (const p of yes) expect({ glob, path: p, match: matchesGlob(p, glob, options) }).toEqual({ glob, path: p, match: true });
  for (const p of no) expect({ glob, path: p, match: matchesGlob(p, glob, options) }).toEqual({ glob, path: p, match: false });
}

function expectInvalid(glob: string) {
  let caught: unknown;
  try {
    globToRegExp(glob);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(IndxError);
  expect((caught as IndxError).code).toBe("validation_failed");
  return caught as IndxError;
}

describe("matchesGlob", () => {
  test("* stays within one segment; a glob without / matches the whole path", () => {
    expectMatches("*.md", ["a.md", ".md", "Note.md"], ["A/a.md", "a.mdx", "a.txt"]);
    expectMatches("Projects/*.md", ["Projects/a.md"], ["Projects/x/a.md", "Projects.md", "Other/a.md"]);
    expectMatches("*/*", ["a/b"], ["a", "a/b/c"]);
  });

  test("? is exactly one character other than /", () => {
    expectMatches("note?.md", ["note1.md", "noteé.md", "note😀.md"], ["note.md", "note12.md", "note/.md"]);
  });

  test("** spans whole segments, including none", () => {
    expectMatches("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["a/xb", "ab", "b", "x/a/b", "a/b/c"]);
    expectMatches("**/x.md", ["x.md", "a/x.md", "a/b/x.md"], ["ax.md", "a/yx.md"]);
    expectMatches("Projects/**", ["Projects/a.md", "Projects/x/y/z.md", "Projects/"], ["Projects", "Projects2/a.md", "Other/Projects/a.md"]);
    expectMatches("**", ["a", "a/b/c.md"], []);
    expectMatches("**/*.md", ["a.md", "x/y/a.md"], ["a.png", "x/a.png"]);
    expectMatches("a/**/*.md", ["a/n.md", "a/b/c/n.md"], ["n.md", "b/n.md"]);
  });

  test("** inside a segment is any characters, / included", () => {
    expectMatches("**.md", ["a.md", "x/y/a.md"], ["a.png"]);
    expectMatches("a**b", ["ab", "a/x/b"], ["ba"]);
  });

  test("character classes never match /", () => {
    expectMatches("[abc].md", ["a.md", "c.md"], ["d.md", "ab.md"]);
    expectMatches("[!abc].md", ["d.md", "Z.md"], ["a.md", "/.md"]);
    expectMatches("[^abc].md", ["d.md"], ["b.md"]);
    expectMatches("x[a-c]y", ["xby"], ["xdy", "x-y"]);
    expectMatches("x[-a]y", ["x-y", "xay"], ["xby"]);
    expectMatches("x[a-]y", ["x-y", "xay"], ["xby"]);
    expectMatches("x[]a]y", ["x]y", "xay"], ["xby"]);
    expectMatches("x[/]y", [], ["x/y"]);
    expectMatches("x[\\-a]y", ["x-y"], ["xby"]);
    expectMatches("x[\\]]y", ["x]y"], ["x\\y"]);
    expectMatches("x[^\\\\]y", ["xay"], ["x\\y"]);
  });

  test("{a,b} alternation, with wildcards inside", () => {
    expectMatches("*.{md,canvas}", ["a.md", "b.canvas"], ["c.base", "x/a.md"]);
    expectMatches("{Projects,Areas}/**", ["Projects/a.md", "Areas/x/b.md"], ["Archive/a.md"]);
    expectMatches("{a*,b?}.md", ["abc.md", "bx.md"], ["bxy.md", "c.md"]);
    expectMatches("x{,y}.md", ["x.md", "xy.md"], ["xz.md"]);
  });

  test("RegExp metacharacters and other punctuation are literal", () => {
    expectMatches("a.md", ["a.md"], ["aXmd"]);
    expectMatches("(draft) +1 $x^ |y|.md", ["(draft) +1 $x^ |y|.md"], ["draft +1 x y.md"]);
    expectMatches("a,b}.md", ["a,b}.md"], []);
    expectMatches("a]b.md", ["a]b.md"], []);
    expectMatches("C++/notes-1.md", ["C++/notes-1.md"], ["C/notes-1.md"]);
    expectMatches("日本/*.md", ["日本/メモ.md"], ["日本語/メモ.md"]);
  });

  test("backslash escapes the next character", () => {
    expectMatches("\\*.md", ["*.md"], ["a.md"]);
    expectMatches("a\\?", ["a?"], ["ab"]);
    expectMatches("\\{a,b\\}", ["{a,b}"], ["a"]);
    expectMatches("a\\", ["a\\"], ["a"]);
  });

  test("case-sensitive by default, nocase on request", () => {
    expectMatches("projects/*.MD", [], ["Projects/a.md"]);
    expectMatches("projects/*.MD", ["Projects/a.md", "PROJECTS/B.md"], ["Other/a.md"], { nocase: true });
    expectMatches("[a-c].md", ["B.md"], ["d.md"], { nocase: true });
  });

  test("a leading / is ignored: paths are vault-relative", () => {
    expectMatches("/Projects/**", ["Projects/a.md"], ["x/Projects/a.md"]);
  });
});

describe("globToRegExp", () => {
  test("invalid globs are validation errors that do not echo the glob", () => {
    for (const glob of ["[abc", "a/[", "{a,b", "x{", "{a,{b,c}}", "", "[z-a]", "/"]) {
      const err = expectInvalid(glob);
      if (glob.length > 1) expect(err.message).not.toContain(glob);
    }
    expect(expectInvalid("ab[cd").details).toEqual({ position: 2 });
  });

  test("compiled expressions are cached per glob and option", () => {
    expect(globToRegExp("**/*.md")).toBe(globToRegExp("**/*.md"));
    expect(globToRegExp("**/*.md", { nocase: true })).not.toBe(globToRegExp("**/*.md"));
    expect(globToRegExp("**/*.md", { nocase: true }).flags).toContain("i");
  });

  test("the cache stays bounded and keeps working past its limit", () => {
    const first = globToRegExp("bounded-0/*");
    for (let i = 1; i < 1000; i++) globToRegExp(`bounded-${i}/*`);
    const again = globToRegExp("bounded-0/*");
    expect(again).not.toBe(first); // evicted and rebuilt
    expect(again.test("bounded-0/a")).toBe(true);
  });

  test("the regex is stateless (no g flag), so it can be shared", () => {
    const re = globToRegExp("*.md");
    expect(re.test("a.md")).toBe(true);
    expect(re.test("a.md")).toBe(true);
  });
});
