import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { linkBacklinks, linkForward } from "../../src/links/ops.ts";
import { noteRead } from "../../src/notes/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Typed links: links in frontmatter properties are relations named by the property (docs/obsidian.md,
 * Typed links). A small vault, then kepano's, whose books point at their authors and genres.
 */
let sb: Sandbox;
let ctx: App;

const FILES = {
  "Projects.md": "# Projects\n",
  "B.md": "---\nup: '[[Projects]]'\n---\nSee [[Projects]].\n",
  "C.md": "# C\n",
  "A.md": ["---", 'up: "[[Projects]]"', "related:", '  - "[[B]]"', '  - "[[C]]"', "Source: '[[C]]'", "---", "Body [[Projects]] and [[B]].", ""].join("\n"),
};

beforeAll(async () => {
  sb = sandbox(FILES);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
});

afterAll(() => {
  ctx.close();
  sb.cleanup();
});

const rels = (links: { raw: string; rel?: string; syntax: string }[]) => links.map((l) => `${l.rel ?? "-"} ${l.raw}`);

describe("typed links", () => {
  test("link_forward names each frontmatter link's relation; body links have none", async () => {
    const out = await invoke(linkForward, ctx, { path: "A.md" });
    expect(rels(out.links)).toEqual(["up [[Projects]]", "related [[B]]", "related [[C]]", "Source [[C]]", "- [[Projects]]", "- [[B]]"]);
    // The Obsidian cache key stays where it was: list items carry their index.
    expect(out.links.map((l) => l.property ?? null)).toEqual(["up", "related.0", "related.1", "Source", null, null]);
  });

  test("rel filters forward links: one name, a list, any case", async () => {
    expect(rels((await invoke(linkForward, ctx, { path: "A.md", rel: "up" })).links)).toEqual(["up [[Projects]]"]);
    const two = await invoke(linkForward, ctx, { path: "A.md", rel: ["related", "SOURCE"] });
    expect(two.count).toBe(3);
    expect(rels(two.links)).toEqual(["related [[B]]", "related [[C]]", "Source [[C]]"]);
    expect((await invoke(linkForward, ctx, { path: "A.md", rel: "nothing" })).count).toBe(0);
  });

  test("rel filters backlinks: the notes whose `up` points here", async () => {
    const all = await invoke(linkBacklinks, ctx, { path: "Projects.md" });
    expect(all.backlinks.map((b) => `${b.source} ${b.rel ?? "-"}`)).toEqual(["A.md up", "A.md -", "B.md up", "B.md -"]);
    const up = await invoke(linkBacklinks, ctx, { path: "Projects.md", rel: ["up"] });
    expect(up.count).toBe(2);
    expect(up.backlinks.map((b) => b.source)).toEqual(["A.md", "B.md"]);
    expect((await invoke(linkBacklinks, ctx, { path: "C.md", rel: "related" })).backlinks.map((b) => b.raw)).toEqual(["[[C]]"]);
  });

  test("note_read's links and backlinks carry the relation too", async () => {
    const note = await invoke(noteRead, ctx, { path: "A.md", include: ["links"] });
    expect(rels(note.links!)).toEqual(["up [[Projects]]", "related [[B]]", "related [[C]]", "Source [[C]]", "- [[Projects]]", "- [[B]]"]);
    const target = await invoke(noteRead, ctx, { path: "Projects.md", include: ["backlinks"] });
    expect(target.backlinks!.filter((b) => b.rel === "up").map((b) => b.source)).toEqual(["A.md", "B.md"]);
  });

  test("links.typed_keys chooses which properties are relations, without re-indexing", async () => {
    const only = sb.context({ "links.typed_keys": ["up", "source"] });
    try {
      const out = await invoke(linkForward, only, { path: "A.md" });
      expect(rels(out.links)).toEqual(["up [[Projects]]", "- [[B]]", "- [[C]]", "Source [[C]]", "- [[Projects]]", "- [[B]]"]);
      expect((await invoke(linkBacklinks, only, { path: "C.md", rel: "related" })).count).toBe(0);
    } finally {
      only.close();
    }
    const none = sb.context({ "links.typed_keys": [] });
    try {
      expect((await invoke(linkForward, none, { path: "A.md" })).links.some((l) => l.rel !== undefined)).toBe(false);
    } finally {
      none.close();
    }
  });

  test("a bad rel filter is a typed validation error", async () => {
    await expect(invoke(linkForward, ctx, { path: "A.md", rel: [] })).rejects.toMatchObject({ code: "validation_failed" });
    await expect(invoke(linkForward, ctx, { path: "A.md", rel: 3 })).rejects.toMatchObject({ code: "validation_failed" });
  });
});

describe("typed links in kepano's vault", () => {
  let kepano: Sandbox;
  let kctx: App;

  beforeAll(async () => {
    kepano = sandbox();
    cpSync(join(import.meta.dir, "..", "..", "fixtures", "kepano"), kepano.vault, { recursive: true });
    kctx = kepano.context();
    await kctx.updateIndex({ build: true });
  });

  afterAll(() => {
    kctx.close();
    kepano.cleanup();
  });

  test("a book's author, genres and topics are relations named by their properties", async () => {
    const out = await invoke(linkForward, kctx, { path: "References/Out of Control.md", rel: ["author", "genre", "topics"] });
    expect(out.links.map((l) => `${l.rel} → ${l.target ?? l.linkpath}`)).toEqual([
      "author → References/Kevin Kelly.md",
      "genre → Futurism",
      "genre → Nonfiction",
      "topics → Emergence",
    ]);
  });

  test("the notes whose categories point at Books", async () => {
    const books = await invoke(linkBacklinks, kctx, { path: "Categories/Books.md", rel: "categories" });
    expect(books.backlinks.map((b) => b.source)).toEqual(expect.arrayContaining(["References/Out of Control.md", "References/The Machine Stops.md"]));
    expect(books.backlinks.every((b) => b.rel === "categories" && b.syntax === "frontmatter")).toBe(true);
  });
});
