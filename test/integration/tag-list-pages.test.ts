import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { App } from "../../src/app/context.ts";
import { tagList } from "../../src/tags/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** tag_list comes in pages (issue 30): a vault of thousands of tags is not one answer. */
let sb: Sandbox;
let ctx: App;
const TAGS = 450;

beforeAll(async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < TAGS; i++) files[`n${i}.md`] = `# N${i}\n\n#t${String(i).padStart(3, "0")}${i < 5 ? " #common" : ""}\n`;
  sb = sandbox(files);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
});

afterAll(() => {
  ctx?.close();
  sb?.cleanup();
});

describe("tag_list", () => {
  test("answers a page (most used first) with a cursor to the next, and the total", async () => {
    const first = await invoke(tagList, ctx, {});
    expect(first.total).toBe(TAGS + 1);
    expect(first.tags).toHaveLength(200);
    expect(first.tags[0]).toEqual({ tag: "common", count: 5 });
    expect(first.next_cursor).toBeString();
    const seen = [...first.tags];
    let cursor = first.next_cursor;
    while (cursor) {
      const next = await invoke(tagList, ctx, { cursor, limit: 200 });
      seen.push(...next.tags);
      cursor = next.next_cursor;
    }
    expect(new Set(seen.map((t) => t.tag)).size).toBe(TAGS + 1);
    expect((await invoke(tagList, ctx, { limit: 1000 })).next_cursor).toBeNull();
  });
});
