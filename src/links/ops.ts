import { Type } from "@sinclair/typebox";
import { statVaultFile } from "../notes/read.ts";
import { defineOp } from "../ops/define.ts";
import { Cursor, decodeCursor, Limit, NextCursor, page, VaultPath } from "../ops/schemas.ts";
import { Backlink, ForwardLink, unresolvedLinks } from "./graph.ts";

export const linkBacklinks = defineOp({
  name: "link_backlinks",
  title: "Notes that link here",
  description:
    "Every link, embed and frontmatter link that resolves to this file, with its source note, line and text. Check it before renaming or deleting a note.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ path: VaultPath }, { additionalProperties: false }),
  output: Type.Object({ path: Type.String(), count: Type.Integer(), backlinks: Type.Array(Backlink) }),
  run(ctx, input) {
    const path = ctx.vault.safePath(input.path);
    const list = ctx.index.links.backlinks(path);
    if (list.length === 0) statVaultFile(ctx.vault, path); // not_found for a path that is not there at all
    return { path, count: list.length, backlinks: list };
  },
  summary: (o) => `${o.count} backlinks to ${o.path}`,
});

export const linkForward = defineOp({
  name: "link_forward",
  title: "Links out of a note",
  description: "A note's outgoing links with their resolved targets (null when unresolved).",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ path: VaultPath }, { additionalProperties: false }),
  output: Type.Object({ path: Type.String(), count: Type.Integer(), links: Type.Array(ForwardLink) }),
  run(ctx, input) {
    const path = statVaultFile(ctx.vault, input.path).path;
    const links = ctx.index.links.forward(path);
    return { path, count: links.length, links };
  },
  summary: (o) => `${o.count} links from ${o.path}`,
});

export const linkUnresolved = defineOp({
  name: "link_unresolved",
  title: "Broken links",
  description: "Link targets that match no file, most referenced first, with the notes that contain them.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ limit: Type.Optional(Limit(100, 1000)), cursor: Type.Optional(Cursor) }, { additionalProperties: false }),
  output: Type.Object({
    total: Type.Integer(),
    unresolved: Type.Array(Type.Object({ linkpath: Type.String(), count: Type.Integer(), sources: Type.Array(Type.String()) })),
    next_cursor: NextCursor,
  }),
  run(ctx, input) {
    const all = unresolvedLinks(ctx.index);
    const { items, next_cursor } = page(all, decodeCursor(input.cursor), input.limit ?? 100);
    return { total: all.length, unresolved: items, next_cursor };
  },
  summary: (o) => `${o.total} unresolved link targets`,
});

export const linkOrphans = defineOp({
  name: "link_orphans",
  title: "Notes without links",
  description: "Notes with no links in or out: candidates for linking or cleanup.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ limit: Type.Optional(Limit(100, 1000)), cursor: Type.Optional(Cursor) }, { additionalProperties: false }),
  output: Type.Object({
    total: Type.Integer(),
    orphans: Type.Array(Type.Object({ path: Type.String(), title: Type.String() })),
    next_cursor: NextCursor,
  }),
  run(ctx, input) {
    const all = ctx.index.links.orphans();
    const { items, next_cursor } = page(all, decodeCursor(input.cursor), input.limit ?? 100);
    return { total: all.length, orphans: items, next_cursor };
  },
  summary: (o) => `${o.total} orphan notes`,
});
