import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { App } from "../../src/app/context.ts";
import { baseQuery } from "../../src/bases/ops.ts";
import { VersionedMemo } from "../../src/core/memo.ts";
import { linkBrokenAnchors } from "../../src/links/ops.ts";
import { noteList } from "../../src/notes/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Lists that read the whole vault are computed once per index version and paged from the kept
 * result (docs/decisions.md, "Derived results are kept per index version"): pages after the
 * first and repeated queries read the kept result, and any change to the index is seen.
 */
let sb: Sandbox;
let ctx: App;

const notes: Record<string, string> = { "Target.md": "# Here\n\ntext ^kept\n" };
for (let i = 0; i < 12; i++) notes[`n${String(i).padStart(2, "0")}.md`] = `---\nstatus: ${i % 2 ? "open" : "done"}\n---\nSee [[Target#Gone ${i}]].\n`;

const BASE = 'filters:\n  and:\n    - status == "open"\nviews:\n  - type: table\n    name: Open\n    order: [file.name, status]\n';

beforeAll(async () => {
  sb = sandbox(notes);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
});

afterAll(() => {
  ctx.close();
  sb.cleanup();
});

describe("derived results", () => {
  test("link_broken_anchors pages read one kept list, and a fixed anchor leaves it", async () => {
    const all = await invoke(linkBrokenAnchors, ctx, { limit: 1000 });
    expect(all.total).toBe(12);
    const first = await invoke(linkBrokenAnchors, ctx, { limit: 5 });
    const second = await invoke(linkBrokenAnchors, ctx, { limit: 5, cursor: first.next_cursor! });
    expect([...first.anchors, ...second.anchors]).toEqual(all.anchors.slice(0, 10));
    expect(ctx.index.derivedKept).toBe(1);

    sb.write("Target.md", "# Here\n\n## Gone 3\n\ntext ^kept\n");
    await ctx.updateIndex({ paths: ["Target.md"] });
    const after = await invoke(linkBrokenAnchors, ctx, { limit: 1000 });
    expect(after.total).toBe(11);
    expect(after.anchors.map((a) => a.subpath)).not.toContain("#Gone 3");
  });

  test("note_list with where and base_query repeated on an unchanged index read kept results; an edit is seen", async () => {
    const where = { where: 'status == "open"', limit: 100 };
    const a = await invoke(noteList, ctx, where);
    const b = await invoke(noteList, ctx, where);
    expect(b).toEqual(a);
    expect(a.total).toBe(6);
    const qa = await invoke(baseQuery, ctx, { base: BASE });
    const qb = await invoke(baseQuery, ctx, { base: BASE, limit: 2 });
    expect(qb.rows).toEqual(qa.rows.slice(0, 2));
    expect(qa.total).toBe(6);
    const plain = await invoke(noteList, ctx, { limit: 5 });
    expect(plain.total).toBe(13);
    // One list each: the broken anchors (index unchanged since), the where listing, the base's
    // evaluation. A listing without a filter reads its page alone and keeps nothing
    // (docs/decisions.md, "Writes under load").
    expect(ctx.index.derivedKept).toBe(3);
    const rest = await invoke(noteList, ctx, { cursor: plain.next_cursor ?? "", limit: 100 });
    expect([...plain.notes, ...rest.notes].map((n) => n.path)).toEqual((await invoke(noteList, ctx, { limit: 100 })).notes.map((n) => n.path));
    expect(rest.next_cursor).toBeNull();
    // The page read alone is the page of the whole listing, by path and newest first.
    for (const sort of ["path", "mtime"] as const)
      expect((await invoke(noteList, ctx, { sort, limit: 4, cursor: plain.next_cursor ?? "" })).notes).toEqual(
        (await invoke(noteList, ctx, { sort, path_glob: "**", limit: 100 })).notes.slice(5, 9),
      );

    sb.write("n00.md", "---\nstatus: open\n---\nNo links.\n");
    await ctx.updateIndex({ paths: ["n00.md"] });
    expect((await invoke(noteList, ctx, where)).total).toBe(7);
    expect((await invoke(baseQuery, ctx, { base: BASE })).total).toBe(7);
  });

  test("a change of types.json is seen by a kept where listing", async () => {
    const where = { where: 'status == "open"' };
    expect((await invoke(noteList, ctx, where)).total).toBe(7);
    sb.write(".obsidian/types.json", JSON.stringify({ types: { status: "multitext" } }));
    // A status declared a list is no longer the text "open".
    const after = await invoke(noteList, ctx, where).then(
      (o) => o.total,
      () => -1,
    );
    expect(after).not.toBe(7);
  });
});

describe("VersionedMemo", () => {
  test("keeps results of one version within its weight, least recently used out first", () => {
    const memo = new VersionedMemo(10, 3);
    let computed = 0;
    const get = (v: string, k: string, weight: number) =>
      memo.get(
        v,
        k,
        () => {
          computed++;
          return k;
        },
        () => weight,
      );
    get("1", "a", 4);
    get("1", "b", 4);
    get("1", "a", 4);
    expect(computed).toBe(2);
    get("1", "c", 4); // over the weight: b, the least recently used, goes
    expect(memo.size).toBe(2);
    get("1", "a", 4);
    expect(computed).toBe(3);
    get("1", "big", 11); // heavier than the bound: returned, not kept
    expect(memo.size).toBe(2);
    get("2", "a", 4); // a new version forgets the old one's results
    expect(computed).toBe(5);
    expect(memo.size).toBe(1);
  });
});
