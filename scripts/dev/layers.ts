#!/usr/bin/env bun
/**
 * Figures of the import graph of src/ (docs/architecture.md, Measuring the layers):
 * `bun scripts/dev/layers.ts [repo root]` prints the largest strongly connected component of
 * top-level folders (run-time imports), the run-time closure of the operation context, and the
 * non-null assertions per 1,000 lines. It reads any checkout, so a before/after pair is two runs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { blankComments, importsOf, isFile, resolveSpec } from "./imports.ts";

export interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every import between two files of src/, as repository-relative paths. */
export function sourceEdges(root: string): Edge[] {
  const edges: Edge[] = [];
  for (const f of new Bun.Glob("src/**/*.ts").scanSync(root)) {
    const file = f.split("\\").join("/");
    if (file.endsWith(".d.ts")) continue;
    for (const imp of importsOf(readFileSync(join(root, file), "utf8"))) {
      const to = resolveSpec(file, imp.spec);
      if (to?.startsWith("src/") && isFile(join(root, to))) edges.push({ from: file, to, typeOnly: imp.typeOnly });
    }
  }
  return edges;
}

/** Tarjan's strongly connected components of a directed graph. */
export function components(nodes: Iterable<string>, next: (n: string) => Iterable<string>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    on.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      out.push(scc.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return out;
}

/** The top-level folder of a file of src/; src/main.ts is a folder of its own. */
const folderOf = (file: string) => file.split("/").slice(1, -1)[0] ?? "main.ts";

function main(): void {
  const root = process.argv[2] ?? ".";
  const edges = sourceEdges(root);
  const runtime = edges.filter((e) => !e.typeOnly);

  const graph = new Map<string, Set<string>>();
  for (const e of runtime) {
    const [a, b] = [folderOf(e.from), folderOf(e.to)];
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    if (a !== b) graph.get(a)?.add(b);
  }
  const sccs = components(graph.keys(), (n) => graph.get(n) ?? []).sort((a, b) => b.length - a.length);
  console.log(`folders: ${graph.size}; largest run-time knot: ${sccs[0]?.length ?? 0} (${sccs[0]?.join(" ") ?? ""})`);
  const fileSccs = components(new Set(runtime.flatMap((e) => [e.from, e.to])), (n) => runtime.filter((e) => e.from === n).map((e) => e.to)).filter(
    (c) => c.length > 1,
  );
  console.log(`file cycles (run time): ${fileSccs.length ? fileSccs.map((c) => c.join(" ↔ ")).join("; ") : "none"}`);

  // Before issue 26 the context class was src/ops/context.ts; after, that file is the interface and
  // src/app/context.ts the class (the composition root).
  for (const context of ["src/ops/context.ts", "src/app/context.ts"].filter((f) => isFile(join(root, f)))) {
    const seen = new Set([context]);
    const todo = [context];
    for (let f = todo.pop(); f !== undefined; f = todo.pop())
      for (const e of runtime)
        if (e.from === f && !seen.has(e.to)) {
          seen.add(e.to);
          todo.push(e.to);
        }
    console.log(`run-time closure of ${context}: ${seen.size} files${seen.has("src/search/ops.ts") ? " (vault_search among them)" : ""}`);
  }

  let lines = 0;
  let assertions = 0;
  for (const f of new Bun.Glob("src/**/*.ts").scanSync(root)) {
    const text = readFileSync(join(root, f), "utf8");
    lines += text.split("\n").length;
    assertions += nonNullAssertions(text);
  }
  console.log(`non-null assertions: ${assertions} in ${lines} lines = ${((assertions * 1000) / lines).toFixed(1)} per 1,000`);
}

/** Postfix `!` that is not `!=`: counted in code with comments and string contents blanked. */
export function nonNullAssertions(source: string): number {
  const code = blankComments(source).replace(/(["'`])(?:\\.|(?!\1)[^\\\n])*\1/g, '""');
  return code.match(/[\w)\]]!(?!=)/g)?.length ?? 0;
}

if (import.meta.main) main();
