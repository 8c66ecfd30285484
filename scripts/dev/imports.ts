/**
 * The imports of a TypeScript source file, read with regular expressions: the code base is
 * Biome-formatted and uses verbatimModuleSyntax, so a type-only import always says `type`
 * (docs/architecture.md). Used by scripts/dev/move.ts, scripts/dev/layers.ts and the
 * architecture test.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

export interface Import {
  /** The specifier as written. */
  spec: string;
  /** Erased at run time: `import type`, `export type`, all-`type` braces, `typeof import()`. */
  typeOnly: boolean;
  /** `import("…")` or `new URL("…", import.meta.url)` (a worker or an asset). */
  dynamic: boolean;
  /** Offset of the specifier's opening quote in the source. */
  at: number;
}

const STATIC = /(^|\n)[ \t]*(import|export)\s+(type\s+)?([\w*${}\s,]*?)\s*from\s*(["'])([^"'\n]+)\5/g;
const BARE = /(^|\n)[ \t]*import\s*(["'])([^"'\n]+)\2/g;
const DYNAMIC = /(typeof\s+)?\bimport\(\s*(["'])([^"'\n]+)\2\s*\)/g;
const URL_OF = /new URL\(\s*(["'])([^"'\n]+)\1\s*,\s*import\.meta\.url\s*\)/g;

/** Every import of `source`, comments included only if `withComments` (move.ts rewrites those too). */
export function importsOf(source: string, withComments = false): Import[] {
  const text = withComments ? source : blankComments(source);
  const out: Import[] = [];
  for (const m of text.matchAll(STATIC)) {
    const inner = /^\{([^}]*)\}$/.exec((m[4] ?? "").trim());
    const names =
      inner?.[1]
        ?.split(",")
        .map((n) => n.trim())
        .filter((n) => n !== "") ?? [];
    const allTypes = names.length > 0 && names.every((n) => n.startsWith("type "));
    const spec = m[6]!;
    out.push({ spec, typeOnly: m[3] !== undefined || allTypes, dynamic: false, at: m.index + m[0].length - spec.length - 2 });
  }
  for (const m of text.matchAll(BARE)) out.push({ spec: m[3]!, typeOnly: false, dynamic: false, at: m.index + m[0].length - m[3]!.length - 2 });
  for (const m of text.matchAll(DYNAMIC))
    out.push({ spec: m[3]!, typeOnly: m[1] !== undefined, dynamic: true, at: m.index + m[0].indexOf(m[2]!, m[1]?.length ?? 0) });
  for (const m of text.matchAll(URL_OF)) out.push({ spec: m[2]!, typeOnly: false, dynamic: true, at: m.index + m[0].indexOf(m[1]!) });
  return out.sort((a, b) => a.at - b.at);
}

/** Replaces comments by spaces (offsets are kept); quotes are honoured so "//" in a URL stays. */
export function blankComments(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < source.length && source[j] !== c && !(c !== "`" && source[j] === "\n")) j += source[j] === "\\" ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? source.length : end;
      out += " ".repeat(stop - i);
      i = stop;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The repository-relative file a relative specifier in `fromFile` names, or null (a package, node:…). */
export function resolveSpec(fromFile: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  return normalize(join(dirname(fromFile), spec))
    .split("\\")
    .join("/");
}

/** The specifier that names `target` from `fromFile`, always starting with ./ or ../. */
export function specFor(fromFile: string, target: string): string {
  const rel = relative(dirname(fromFile), target).split("\\").join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}

export function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}
