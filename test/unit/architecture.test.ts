import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { importsOf, resolveSpec } from "../../scripts/dev/imports.ts";

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
  // The note columns stored as JSON text are decoded behind the seam (src/index/storage/json-columns.ts).
  if (/JSON\.parse\([^)]*\b(?:tags|aliases|frontmatter)Json\b/.test(code)) out.push("decodes an index JSON column");
  return out;
}

describe("the checker", () => {
  test("finds an import of bun:sqlite, type-only or dynamic", () => {
    expect(seamViolations('import type { Database } from "bun:sqlite";\nexport let x: Database;')).toEqual(["imports bun:sqlite"]);
    expect(seamViolations('export const m = await import("bun:sqlite");')).toEqual(["imports bun:sqlite"]);
  });

  test("finds a JSON column of the index decoded outside it", () => {
    expect(seamViolations("export const t = (r: { tagsJson: string }) => JSON.parse(r.tagsJson);")).toEqual(["decodes an index JSON column"]);
    expect(seamViolations("export const t = (text: string) => JSON.parse(text);")).toEqual([]);
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

/**
 * The layers of src/ (docs/architecture.md): each unit (a folder; src/main.ts is one of its own)
 * has a rank, bottom to top, and its face (the files other units may import). Imports point
 * down; a unit is entered only through its face; units of the same rank are features side by
 * side, and only their operation files (ops.ts, <topic>-ops.ts) may import across them.
 */
export const RANKS: readonly (readonly string[])[] = [
  ["core"],
  ["ops"],
  ["dates", "config", "markdown", "events", "auth", "service"],
  // The OAuth authorization server beside the filesystem layer: it needs only auth, events' types and core.
  ["vault", "oauth"],
  ["index/lexical"],
  ["index/storage"],
  // Above the index's storage: the deny wall reads the index, the cost cap the spend ledger (docs/decisions.md).
  ["providers"],
  ["bases", "patch"],
  ["index/build"],
  ["search"],
  ["embeddings"],
  ["ai"],
  ["writes"],
  ["canvas", "templates"],
  ["links", "periodic"],
  ["context", "notes", "tags"],
  ["attachments"],
  ["ai/ops"],
  ["maintenance"],
  ["app"],
  ["mcp"],
  ["http"],
  ["cli"],
  ["main.ts"],
];

/** What other units may import of a unit; "*": every file (a small folder of shared parts). */
export const FACES: Record<string, readonly string[] | "*"> = {
  core: "*",
  ops: "*",
  dates: "*",
  config: "*",
  events: "*",
  auth: "*",
  oauth: ["client-metadata.ts", "metadata.ts", "secrets.ts", "server.ts", "store.ts"],
  templates: "*",
  maintenance: "*",
  service: ["health.ts", "manager.ts", "spec.ts"],
  markdown: [
    "blocks.ts",
    "chars.ts",
    "chunks.ts",
    "fences.ts",
    "frontmatter.ts",
    "headings.ts",
    "links.ts",
    "parse.ts",
    "scanner.ts",
    "tags.ts",
    "tasks.ts",
    "types.ts",
  ],
  vault: ["glob.ts", "grant.ts", "link-resolver.ts", "obsidian-app.ts", "paths.ts", "read.ts", "scan.ts", "vault.ts"],
  providers: ["globs.ts", "meter.ts", "pricing.ts", "probe.ts", "providers.ts", "settings.ts", "spend.ts", "tokens.ts", "types.ts", "wall.ts"],
  "index/lexical": ["bm25.ts", "fts5-postings.ts", "marks.ts", "match-windows.ts", "search-document.ts", "unicode61.ts"],
  "index/storage": [
    "ai-db.ts",
    "chunk-keys.ts",
    "connection.ts",
    "corruption.ts",
    "integrity.ts",
    "json-columns.ts",
    "note-text.ts",
    "queries/bases.ts",
    "queries/candidates.ts",
    "queries/chunks.ts",
    "queries/documents.ts",
    "queries/files.ts",
    "queries/fts.ts",
    "queries/links.ts",
    "queries/lists.ts",
    "rows.ts",
    "schema.ts",
    "sqlite-vec.ts",
    "state-db.ts",
    "store.ts",
    "vectors.ts",
  ],
  "index/build": ["file-rows.ts", "folder-check.ts", "indexer.ts", "jobs.ts", "watcher.ts", "worker-runner.ts"],
  bases: ["cells.ts", "expr/limits.ts", "expr/parser.ts", "ops.ts", "properties.ts", "where.ts"],
  patch: ["engine.ts", "schema.ts"],
  search: ["filter.ts", "fusion-weight.ts", "ops.ts", "related.ts", "semantic.ts", "stopwords.ts"],
  embeddings: ["job.ts", "service.ts", "store.ts"],
  ai: [
    "cache.ts",
    "citations.ts",
    "invocation.ts",
    "linear-regex.ts",
    "passages.ts",
    "prompts.ts",
    "scope-fingerprint.ts",
    "scope.ts",
    "service.ts",
    "segments.ts",
    "session.ts",
    "stream.ts",
  ],
  "ai/ops": [
    "ask/ask-ops.ts",
    "extract/extract-ops.ts",
    "metadata/fields.ts",
    "catalogue.ts",
    "metadata/metadata-ops.ts",
    "relate/relate-ops.ts",
    "status-ops.ts",
    "summarize/summarize-ops.ts",
    "tag/tag-ops.ts",
    "toc/toc-ops.ts",
  ],
  writes: ["diff.ts", "edit.ts", "encoding.ts", "idempotency.ts", "pipeline.ts", "schemas.ts"],
  canvas: ["json-spans.ts", "ops.ts"],
  links: ["anchors.ts", "graph.ts", "link-text.ts", "ops.ts", "rewrite.ts", "sources.ts", "typed.ts"],
  periodic: ["note.ts", "ops.ts"],
  context: ["ops.ts", "schema.ts"],
  notes: ["capture-ops.ts", "document-ops.ts", "mime.ts", "move-ops.ts", "ops.ts", "read-many-ops.ts", "retrieval-ops.ts", "validate-ops.ts", "write-ops.ts"],
  tags: ["ops.ts", "rename-ops.ts", "valid.ts"],
  attachments: ["write-ops.ts"],
  app: ["context.ts", "note-names.ts", "reader-pool.ts", "registry.ts", "vault-directory.ts", "vaults.ts"],
  mcp: ["catalogue.ts", "http.ts", "stdio.ts"],
  http: ["bind-policy.ts", "serve.ts", "tls.ts"],
  cli: ["main.ts", "root.ts"],
  "main.ts": "*",
};

/**
 * Type-only imports that point up, each with its reason. Types vanish at run time, so these cost
 * no loading and make no cycle; each is still a place where a lower layer knows a higher one.
 */
const CONTEXT = "the OpContext interface names the services the composition root (src/app) builds; operations see their types, never their constructors";
const EMBEDDINGS =
  "search reads the vectors the embeddings service keeps, and the service measures search (fusion-weight.ts) after a run, so the service sits above search and search knows it by type only";
export const TYPE_ONLY_UP: Record<string, string> = {
  "ops/context.ts -> ai/service.ts": CONTEXT,
  "ops/context.ts -> ai/stream.ts": CONTEXT,
  "ops/context.ts -> embeddings/service.ts": CONTEXT,
  "ops/context.ts -> events/hub.ts": CONTEXT,
  "ops/context.ts -> index/build/indexer.ts": CONTEXT,
  "ops/context.ts -> index/build/jobs.ts": CONTEXT,
  "ops/context.ts -> index/storage/store.ts": CONTEXT,
  "ops/context.ts -> vault/vault.ts": CONTEXT,
  "ops/context.ts -> writes/idempotency.ts": CONTEXT,
  "ops/context.ts -> writes/pipeline.ts": CONTEXT,
  "search/semantic.ts -> embeddings/store.ts": EMBEDDINGS,
  "search/fusion-weight.ts -> embeddings/store.ts": EMBEDDINGS,
  "search/ops.ts -> embeddings/service.ts": EMBEDDINGS,
  "search/ops.ts -> embeddings/store.ts": EMBEDDINGS,
};

/** Operation files: the only files that call defineOp, and the only ones that import across features of a rank. */
export const OP_FILE = /(?:^|\/|-)ops\.ts$/;

const UNITS = RANKS.flat();
const RANK = new Map(RANKS.flatMap((units, rank) => units.map((u) => [u, rank] as const)));

/** The unit of a path relative to src/: the longest unit that is a folder holding it, else src/main.ts. */
export function unitOf(rel: string): string {
  let best = "main.ts";
  for (const u of UNITS) if (rel.startsWith(`${u}/`) && (best === "main.ts" || u.length > best.length)) best = u;
  return best;
}

export interface Finding {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every import between two files of src/, paths relative to src/. */
export function sourceImports(files: Iterable<[string, string]>): Finding[] {
  const out: Finding[] = [];
  for (const [rel, text] of files)
    for (const imp of importsOf(text)) {
      const to = resolveSpec(`src/${rel}`, imp.spec);
      if (to?.startsWith("src/")) out.push({ from: rel, to: to.slice(4), typeOnly: imp.typeOnly });
    }
  return out;
}

/** What breaks the layering, as lines "from -> to: why". Type-only upward imports listed in `allowed` pass. */
export function layerViolations(imports: Finding[], allowed: Record<string, string> = TYPE_ONLY_UP): string[] {
  const out: string[] = [];
  for (const i of imports) {
    const [a, b] = [unitOf(i.from), unitOf(i.to)];
    if (a === b) continue;
    const [ra, rb] = [RANK.get(a) ?? -1, RANK.get(b) ?? -1];
    const edge = `${i.from} -> ${i.to}`;
    const up = rb > ra || (rb === ra && !OP_FILE.test(i.from));
    if (up && !(i.typeOnly && edge in allowed))
      out.push(`${edge}: ${i.typeOnly ? "type-only " : ""}import ${rb > ra ? "up" : "across features"} (${a} → ${b})`);
    const face = FACES[b];
    if (face !== undefined && face !== "*" && !face.includes(i.to.slice(b.length + 1))) out.push(`${edge}: not in the face of ${b}`);
    if (i.to === "app/registry.ts" && ra < (RANK.get("app") ?? 0)) out.push(`${edge}: only the top imports the registry`);
  }
  return out;
}

function readSources(): [string, string][] {
  return [...new Bun.Glob("**/*.ts").scanSync(SRC)]
    .map((f) => f.split("\\").join("/"))
    .filter((f) => !f.endsWith(".d.ts"))
    .map((f) => [f, readFileSync(join(SRC, f), "utf8")]);
}

describe("the layer checker", () => {
  test("finds an import that points up, at run time or type-only, and one that skips a face", () => {
    const found = layerViolations(
      [
        { from: "core/errors.ts", to: "ai/service.ts", typeOnly: false },
        { from: "vault/vault.ts", to: "providers/settings.ts", typeOnly: true },
        { from: "search/ops.ts", to: "index/storage/store.ts", typeOnly: false },
        { from: "search/ops.ts", to: "index/storage/queries/stats.ts", typeOnly: false },
      ],
      {},
    );
    expect(found).toEqual([
      "core/errors.ts -> ai/service.ts: import up (core → ai)",
      "vault/vault.ts -> providers/settings.ts: type-only import up (vault → providers)",
      "search/ops.ts -> index/storage/queries/stats.ts: not in the face of index/storage",
    ]);
  });

  test("features of one rank meet only in operation files", () => {
    const across = (from: string) => layerViolations([{ from, to: "notes/mime.ts", typeOnly: false }], {});
    expect(across("tags/rename.ts")).toEqual(["tags/rename.ts -> notes/mime.ts: import across features (tags → notes)"]);
    expect(across("tags/rename-ops.ts")).toEqual([]);
    expect(across("tags/ops.ts")).toEqual([]);
  });

  test("a listed type-only import passes; the same import at run time does not", () => {
    const edge = { from: "vault/vault.ts", to: "providers/settings.ts", typeOnly: true };
    expect(layerViolations([edge], { "vault/vault.ts -> providers/settings.ts": "a reason" })).toEqual([]);
    expect(layerViolations([{ ...edge, typeOnly: false }], { "vault/vault.ts -> providers/settings.ts": "a reason" })).toHaveLength(1);
  });
});

describe("the layers of src/", () => {
  const sources = readSources();
  const imports = sourceImports(sources);

  test("every folder has a rank and a face", () => {
    const folders = new Set(sources.map(([f]) => unitOf(f)));
    const unranked = sources.map(([f]) => f).filter((f) => f.includes("/") && unitOf(f) === "main.ts");
    expect(unranked).toEqual([]);
    for (const u of folders) expect(FACES[u]).toBeDefined();
    for (const [u, face] of Object.entries(FACES))
      if (face !== "*") for (const f of face) expect(sources.some(([s]) => s === `${u}/${f}`) ? `${u}/${f}` : `missing: ${u}/${f}`).toBe(`${u}/${f}`);
  });

  test("imports point down, enter a folder through its face, and leave the registry to the top", () => {
    expect(layerViolations(imports)).toEqual([]);
  });

  test("every listed upward type-only import still exists (the list only shrinks)", () => {
    const edges = new Set(imports.filter((i) => i.typeOnly).map((i) => `${i.from} -> ${i.to}`));
    expect(Object.keys(TYPE_ONLY_UP).filter((e) => !edges.has(e))).toEqual([]);
  });

  test("operation files are named ops.ts or <topic>-ops.ts, and only they define operations", () => {
    const defines = sources.filter(([, text]) => /\bdefineOp\(/.test(text)).map(([f]) => f);
    const named = sources.map(([f]) => f).filter((f) => OP_FILE.test(f));
    expect(defines.filter((f) => !OP_FILE.test(f) && f !== "ops/define.ts")).toEqual([]);
    expect(named.filter((f) => !defines.includes(f))).toEqual([]);
  });

  test("no two files import each other at run time, directly or around a loop", () => {
    const next = new Map<string, string[]>();
    for (const i of imports) if (!i.typeOnly) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const walk = (f: string, path: string[]) => {
      state.set(f, "open");
      for (const t of next.get(f) ?? []) {
        if (state.get(t) === "open") cycles.push([...path.slice(path.indexOf(t)), t].join(" → "));
        else if (!state.has(t)) walk(t, [...path, t]);
      }
      state.set(f, "done");
    };
    for (const f of next.keys()) if (!state.has(f)) walk(f, [f]);
    expect(cycles).toEqual([]);
  });
});
