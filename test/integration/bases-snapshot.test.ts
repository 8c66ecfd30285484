import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { baseQuery } from "../../src/bases/ops.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * After an index update a base's snapshot reuses what it read of the unchanged files: its results
 * must be those of a snapshot read afresh, whatever changed (a property, a link target appearing
 * or going away, a deleted file, types.json).
 */

const BASE = `
formulas:
  next: due + "1d"
views:
  - type: table
    name: All
    order: [file.name, status, due, owner, formula.next, file.tags]
    sort:
      - property: file.path
        direction: ASC
`;

let sb: Sandbox;
let ctx: App;

beforeAll(async () => {
  sb = sandbox({
    "a.md": "---\nstatus: open\ndue: 2025-06-01\nowner: '[[Bob]]'\n---\n#x\n",
    "b.md": "---\nstatus: done\ndue: 2025-06-02\n---\n",
    "c.md": "---\nstatus: open\nowner: '[[Carol]]'\n---\n",
    "Bob.md": "Bob\n",
  });
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
});

afterAll(() => {
  ctx?.close();
  sb?.cleanup();
});

/** What base_query answers from this long-lived context and from one opened now (a fresh snapshot). */
async function bothWays() {
  const live = await invoke(baseQuery, ctx, { base: BASE });
  const fresh = sb.context();
  try {
    return { live, fresh: await invoke(baseQuery, fresh, { base: BASE }) };
  } finally {
    fresh.close();
  }
}

async function update(paths: string[]) {
  await ctx.updateIndex({ paths });
  const { live, fresh } = await bothWays();
  expect(live).toEqual(fresh);
  return live;
}

test("incremental snapshots answer as fresh ones after each kind of change", async () => {
  const first = await bothWays();
  expect(first.live).toEqual(first.fresh);
  expect(first.live.rows.find((r) => r.path === "a.md")!.cells.owner).toEqual({ type: "link", value: { path: "Bob.md", display: "Bob", resolved: true } });

  sb.write("b.md", "---\nstatus: open\ndue: 2025-07-01\n---\n#y\n");
  let result = await update(["b.md"]);
  expect(result.rows.find((r) => r.path === "b.md")!.cells.status).toEqual({ type: "string", value: "open" });

  // A new file makes c.md's owner link resolve, though c.md itself did not change.
  sb.write("Carol.md", "Carol\n");
  result = await update(["Carol.md"]);
  expect(result.rows.find((r) => r.path === "c.md")!.cells.owner).toEqual({ type: "link", value: { path: "Carol.md", display: "Carol", resolved: true } });

  rmSync(join(sb.vault, "Bob.md"));
  result = await update(["Bob.md"]);
  expect(result.rows.find((r) => r.path === "a.md")!.cells.owner).toEqual({ type: "link", value: { path: "Bob", display: "Bob", resolved: false } });

  // Declared types apply without a reindex: due read as text now.
  sb.write(".obsidian/types.json", JSON.stringify({ types: { due: "text" } }));
  const { live, fresh } = await bothWays();
  expect(live).toEqual(fresh);
  expect(live.rows.find((r) => r.path === "a.md")!.cells.due).toEqual({ type: "string", value: "2025-06-01" });
});
