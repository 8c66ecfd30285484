/**
 * planMove on a real vault (kepano/kepano-obsidian, MIT): plan, apply the edits and the rename the
 * way the write pipeline will, re-index, and check that every reference still lands where it did
 * and that nothing but link tokens changed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../../src/app/context.ts";
import { runIndex } from "../../../src/index/build/indexer.ts";
import { LINK_DST_SQL } from "../../../src/index/storage/schema.ts";
import { planMove } from "../../../src/links/rewrite.ts";
import { indexRows } from "../../support/index-rows.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";
import { applyEdits, hashTree, moveFile, read, withoutLinks } from "./helpers.ts";

const KEPANO = join(import.meta.dir, "..", "..", "..", "fixtures", "kepano");

let sb: Sandbox;
let ctx: App;
beforeAll(() => {
  sb = sandbox();
  cpSync(KEPANO, sb.vault, { recursive: true });
  ctx = sb.context();
  runIndex(ctx.vault);
});
afterAll(() => {
  ctx.close();
  sb.cleanup();
});

interface LinkRow {
  src: string;
  ord: number;
  dst: string | null;
}
const linkRows = (): LinkRow[] =>
  indexRows<LinkRow>(ctx, `SELECT f.path AS src, l.ord, ${LINK_DST_SQL} AS dst FROM links l JOIN files f ON f.id = l.src_id ORDER BY f.path, l.ord`);

const backlinkSet = (path: string, rename: (p: string) => string = (p) => p) =>
  new Set(ctx.index.links.backlinks(path).map((b) => `${rename(b.source)}:${b.line}`));

/** Plans and performs one move, then checks everything the plan promises. */
function moveAndCheck(from: string, to: string): { edited: number; inbound: number } {
  const renamed = (p: string) => (p === from ? to : p);
  const hashes = hashTree(sb.vault);
  const linksBefore = linkRows();
  const inbound = backlinkSet(from, renamed);
  const texts = new Map([...hashes.keys()].filter((p) => /\.(md|canvas)$/.test(p)).map((p) => [p, read(sb.vault, p)]));

  const { edits } = planMove(ctx.vault, ctx.index, from, to);
  applyEdits(sb.vault, edits);
  moveFile(sb.vault, from, to);
  runIndex(ctx.vault);

  // Every reference that resolved before lands on the same file (the moved one at its new path).
  const after = new Map(linkRows().map((r) => [`${r.src}#${r.ord}`, r.dst]));
  expect(after.size).toBe(linksBefore.length);
  for (const r of linksBefore) {
    const now = after.get(`${renamed(r.src)}#${r.ord}`);
    if (r.dst !== null) expect({ link: `${r.src}#${r.ord}`, dst: now }).toEqual({ link: `${r.src}#${r.ord}`, dst: renamed(r.dst) });
  }
  expect(backlinkSet(to)).toEqual(inbound);
  expect(backlinkSet(from).size).toBe(0);

  // No other byte in the vault changed; in edited files only link tokens differ.
  const editedPaths = new Set(edits.map((e) => e.path));
  const hashesAfter = hashTree(sb.vault);
  for (const [path, hash] of hashes) {
    if (path === from) continue;
    if (editedPaths.has(path)) expect(hashesAfter.get(path)).not.toBe(hash);
    else expect({ path, hash: hashesAfter.get(path) }).toEqual({ path, hash });
  }
  expect(hashesAfter.has(to)).toBe(true);
  if (!editedPaths.has(from)) expect(hashesAfter.get(to)).toBe(hashes.get(from)!);
  for (const e of edits) {
    const before = texts.get(e.path)!;
    const now = read(sb.vault, renamed(e.path));
    if (e.path.endsWith(".md")) expect(withoutLinks(now)).toBe(withoutLinks(before));
    for (const c of e.changes) expect(c.before).not.toBe(c.after);
  }
  return { edited: edits.length, inbound: inbound.size };
}

describe("planMove on the kepano vault", () => {
  test("the most linked note (frontmatter links) moves to a new folder and name", () => {
    const top = indexRows<{ dst: string; n: number }>(
      ctx,
      `SELECT ${LINK_DST_SQL} AS dst, count(*) AS n FROM links l WHERE dst LIKE '%.md' GROUP BY dst ORDER BY n DESC, dst LIMIT 1`,
    )[0]!;
    expect(top.n).toBeGreaterThan(5);
    const r = moveAndCheck(top.dst, "Archive/Folk & Friends.md");
    expect(r.inbound).toBe(top.n);
    expect(r.edited).toBe(top.n);
    expect(read(sb.vault, "Archive/Folk & Friends.md")).toBe(read(KEPANO, top.dst));
  });

  test("a person note linked from body text and properties", () => {
    const r = moveAndCheck("References/Steph Ango.md", "People/S. Ango (author).md");
    expect(r.inbound).toBeGreaterThan(3);
    expect(r.edited).toBeGreaterThan(3);
  });

  test("an embedded .base file keeps its extension in every embed", () => {
    const r = moveAndCheck("Templates/Bases/Movies.base", "Bases/Films.base");
    expect(r.inbound).toBeGreaterThan(2);
    const embeds = ctx.index.links.backlinks("Bases/Films.base").map((b) => b.raw);
    for (const raw of embeds) expect(raw).toMatch(/\[\[Films\.base(#[^\]|]*)?(\|[^\]]*)?\]\]/);
  });

  test("a note with outgoing links moves without breaking them", () => {
    const source = indexRows<{ path: string; n: number }>(
      ctx,
      `SELECT f.path, count(*) AS n FROM links l JOIN files f ON f.id = l.src_id
        WHERE f.path LIKE 'Notes/%' AND l.dst_path IS NOT NULL GROUP BY f.path ORDER BY n DESC, f.path LIMIT 1`,
    )[0]!;
    moveAndCheck(source.path, "Deep/Er/Moved note.md");
  });
});
