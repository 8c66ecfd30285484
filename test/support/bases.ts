import { EvalBudget } from "../../src/bases/budget.ts";
import { startOfDay } from "../../src/bases/dates.ts";
import type { Entry, World } from "../../src/bases/entry.ts";
import { compileExpression } from "../../src/bases/expr/compile.ts";
import type { Env, Row } from "../../src/bases/expr/scope.ts";
import { LinkValue, type Value } from "../../src/bases/values.ts";
import { LinkResolver } from "../../src/vault/link-resolver.ts";
import { fileKind } from "../../src/vault/scan.ts";

/** A file of an in-memory vault for expression tests: what the index would hold for it. */
export interface FakeFile {
  properties?: Record<string, Value>;
  tags?: string[];
  /** Link targets as written ([[x]] without brackets), resolved against the other files. */
  links?: string[];
  embeds?: string[];
  size?: number;
  mtime?: string;
  ctime?: string;
}

/** A small vault in memory that answers the Entry and World interfaces the engine reads. */
export class MemoryVault implements World {
  private readonly entries = new Map<string, Entry>();
  private readonly resolver: LinkResolver;

  constructor(files: Record<string, FakeFile>) {
    this.resolver = new LinkResolver(Object.keys(files));
    const linkOf = (from: string, text: string) => new LinkValue(text, this.resolve(text, from), null);
    for (const [path, f] of Object.entries(files)) {
      const embeds = (f.embeds ?? []).map((l) => linkOf(path, l));
      const out = [...(f.links ?? []).map((l) => linkOf(path, l)), ...embeds];
      const entry: Entry = {
        path,
        kind: fileKind(path),
        size: f.size ?? 100,
        mtimeMs: Date.parse(f.mtime ?? "2025-01-02T10:00:00"),
        ctimeMs: () => Date.parse(f.ctime ?? "2025-01-01T09:00:00"),
        properties: f.properties ?? {},
        tags: () => f.tags ?? [],
        links: () => out,
        embeds: () => embeds,
        backlinks: () => [...this.entries.values()].filter((e) => e.links().some((l) => l.target === path)).map((e) => new LinkValue(e.path, e.path, null)),
      };
      this.entries.set(path, entry);
    }
  }

  entry(path: string): Entry | null {
    return this.entries.get(path) ?? null;
  }

  resolve(linkpath: string, from: string): string | null {
    return this.resolver.resolve(linkpath, from);
  }

  /** Evaluates one expression for the row `path`, with `this` = `thisPath` and optional formulas. */
  eval(src: string, path: string, opts: { thisPath?: string; now?: string; formulas?: Record<string, string> } = {}): Value {
    const compiledFormulas = new Map(Object.entries(opts.formulas ?? {}).map(([k, v]) => [k, compileExpression(v).run]));
    const env: Env = {
      world: this,
      thisEntry: this.entry(opts.thisPath ?? path)!,
      now: Date.parse(opts.now ?? "2025-06-15T12:00:00"),
      today: startOfDay(Date.parse(opts.now ?? "2025-06-15T12:00:00")),
      budget: new EvalBudget(),
      formula(row: Row, name: string) {
        const f = compiledFormulas.get(name);
        return f ? f({ env, row, locals: null }) : null;
      },
    };
    const entry = this.entry(path);
    if (!entry) throw new Error(`no file ${path}`);
    return compileExpression(src).run({ env, row: { entry, formulas: new Map() }, locals: null });
  }
}
