import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * The storage seam (docs/decisions.md): SQLite is an implementation detail of src/index. Outside
 * it no file imports bun:sqlite, reaches for a connection (`.db`), or holds SQL text. A file
 * named "index.db" in a string or a comment is fine: strings and comments are not code.
 */
const SRC = join(import.meta.dir, "..", "..", "src");
const SEAM = "index/";

const IMPORTS_SQLITE = /\b(?:from|import)\s*\(?\s*["']bun:sqlite["']|\brequire\s*\(\s*["']bun:sqlite["']/;
const SQL = /\b(?:SELECT\s[\s\S]*\bFROM\b|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|DELETE\s+FROM\b|UPDATE\s+\w+\s+SET\b|CREATE\s+(?:VIRTUAL\s+)?TABLE\b|PRAGMA\s+\w+)/;

const transpiler = new Bun.Transpiler({ loader: "ts" });

interface Split {
  /** The code with every string, template text and regex literal emptied. */
  code: string;
  /** The literal texts that were taken out. */
  literals: string[];
}

/**
 * Splits transpiled JavaScript (no comments, no types left) into code and literal text. Regex
 * literals are told from division by the token before them, which holds for this code base.
 */
export function splitLiterals(js: string): Split {
  let code = "";
  const literals: string[] = [];
  /** For each open template `${`, the brace depth at which it closes. */
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const readQuoted = (quote: string) => {
    let text = "";
    for (i++; i < js.length && js[i] !== quote; i++) {
      if (js[i] === "\\") text += js[++i];
      else text += js[i];
    }
    i++;
    return text;
  };
  /** Template text up to the closing backtick or the next `${`. */
  const readTemplate = () => {
    let text = "";
    for (; i < js.length; i++) {
      if (js[i] === "\\") text += js[++i];
      else if (js[i] === "`") {
        i++;
        break;
      } else if (js[i] === "$" && js[i + 1] === "{") {
        i += 2;
        templates.push(depth++);
        break;
      } else text += js[i];
    }
    literals.push(text);
    code += "``";
  };
  while (i < js.length) {
    const c = js[i]!;
    if (c === '"' || c === "'") {
      literals.push(readQuoted(c));
      code += '""';
    } else if (c === "`") {
      i++;
      readTemplate();
    } else if (c === "}" && templates.length > 0 && templates[templates.length - 1] === depth - 1) {
      templates.pop();
      depth--;
      i++;
      readTemplate();
    } else if (c === "/" && /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\breturn|\btypeof|\bcase)\s*$/.test(code)) {
      let inClass = false;
      for (i++; i < js.length; i++) {
        if (js[i] === "\\") i++;
        else if (js[i] === "[") inClass = true;
        else if (js[i] === "]") inClass = false;
        else if (js[i] === "/" && !inClass) break;
      }
      i++;
      while (/[a-z]/.test(js[i] ?? "")) i++;
      code += "/./";
    } else {
      if (c === "{") depth++;
      if (c === "}") depth--;
      code += c;
      i++;
    }
  }
  return { code, literals };
}

/** What a source file outside the seam does that only src/index may do. */
export function seamViolations(source: string): string[] {
  const out: string[] = [];
  if (IMPORTS_SQLITE.test(source)) out.push("imports bun:sqlite");
  const { code, literals } = splitLiterals(transpiler.transformSync(source));
  if (/\.db\b/.test(code)) out.push("touches a database connection (.db)");
  const sql = literals.find((l) => SQL.test(l));
  if (sql !== undefined) out.push(`holds SQL: ${sql.replace(/\s+/g, " ").trim().slice(0, 60)}`);
  return out;
}

describe("the checker", () => {
  test("finds an import of bun:sqlite, type-only or dynamic", () => {
    expect(seamViolations('import type { Database } from "bun:sqlite";\nexport let x: Database;')).toEqual(["imports bun:sqlite"]);
    expect(seamViolations('export const m = await import("bun:sqlite");')).toEqual(["imports bun:sqlite"]);
  });

  test("finds connection access and SQL text", () => {
    expect(seamViolations("export const n = (ctx: any) => ctx.index.db.query(`SELECT count(*) AS n FROM files`).get();")).toEqual([
      "touches a database connection (.db)",
      "holds SQL: SELECT count(*) AS n FROM files",
    ]);
    expect(seamViolations("export function f(s: { db: unknown }) { const d = s.db; return d; }")).toEqual(["touches a database connection (.db)"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source as a sample
    expect(seamViolations("export const q = (t: string) => `DELETE FROM ${t} WHERE id = ?`;")).toEqual(["holds SQL: DELETE FROM"]);
  });

  test("ignores file names in strings, comments, templates and regexes", () => {
    const clean = [
      'import { join } from "node:path";',
      "// vectors.db lives beside index.db: SELECT nothing FROM here",
      "/** state.db holds idempotency records */",
      'export const p = (dir: string) => join(dir, "index.db");',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source as a sample
      "export const q = (dir: string) => `${dir}/vectors.db${dir.length > 1 ? `.${'wal'}` : ''}`;",
      'export const r = /["\\\\]\\.db/.test("x.db");',
      "export const s = (a: number, b: number) => a / b / 2;",
      'export const t = "Select a note from the list";',
    ].join("\n");
    expect(seamViolations(clean)).toEqual([]);
  });
});

describe("the storage seam", () => {
  test("only src/index talks to SQLite", () => {
    const offenders: string[] = [];
    for (const file of new Bun.Glob("**/*.ts").scanSync(SRC)) {
      const rel = relative(SRC, join(SRC, file)).split("\\").join("/");
      if (rel.startsWith(SEAM) || rel.endsWith(".d.ts")) continue;
      for (const v of seamViolations(readFileSync(join(SRC, file), "utf8"))) offenders.push(`src/${rel}: ${v}`);
    }
    expect(offenders).toEqual([]);
  });
});
