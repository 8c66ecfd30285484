import { Type } from "@sinclair/typebox";
import { defineOp } from "../ops/define.ts";
import { Cursor, decodeCursor, INPUT_LIMITS, Limit, NextCursor, page, VaultPath } from "../ops/schemas.ts";
import { statVaultFile } from "../vault/read.ts";
import { AnchorChecker } from "./anchors.ts";
import { Backlink, BrokenAnchor, brokenAnchors, ForwardLink, toBacklink, toForwardLink, unresolvedLinks } from "./graph.ts";
import { relFilter, TypedLinks } from "./typed.ts";

const RelName = Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars });
const RelInput = Type.Union([RelName, Type.Array(RelName, { minItems: 1, maxItems: INPUT_LIMITS.tagFilters })], {
  description: "Only typed links of these frontmatter properties.",
});

export const linkBacklinks = defineOp({
  name: "link_backlinks",
  errors: ["path_invalid", "not_found"],
  title: "Notes that link here",
  description: "Links to a file: source, line, text, rel.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ path: VaultPath, rel: Type.Optional(RelInput) }, { additionalProperties: false }),
  output: Type.Object({ path: Type.String(), count: Type.Integer(), backlinks: Type.Array(Backlink) }),
  run(ctx, input) {
    const path = ctx.vault.safePath(input.path);
    const rows = ctx.index.links.backlinks(path);
    if (rows.length === 0) statVaultFile(ctx.vault, path); // not_found for a path that is not there at all
    const typed = TypedLinks.fromConfig(ctx.vault.config);
    const wanted = relFilter(input.rel);
    const list = rows.map((r) => toBacklink(r, typed)).filter((l) => wanted === null || wanted(l.rel));
    return { path, count: list.length, backlinks: list };
  },
  summary: (o) => `${o.count} backlinks to ${o.path}`,
});

export const linkForward = defineOp({
  name: "link_forward",
  errors: ["path_invalid", "not_found"],
  title: "Links out of a note",
  description: "A note's outgoing links and their targets.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ path: VaultPath, rel: Type.Optional(RelInput) }, { additionalProperties: false }),
  output: Type.Object({ path: Type.String(), count: Type.Integer(), links: Type.Array(ForwardLink) }),
  run(ctx, input) {
    const path = statVaultFile(ctx.vault, input.path).path;
    const typed = TypedLinks.fromConfig(ctx.vault.config);
    const anchors = new AnchorChecker(ctx.index);
    const wanted = relFilter(input.rel);
    const links = ctx.index.links
      .forward(path)
      .map((r) => toForwardLink(r, typed, anchors))
      .filter((l) => wanted === null || wanted(l.rel));
    return { path, count: links.length, links };
  },
  summary: (o) => `${o.count} links from ${o.path}`,
});

export const linkUnresolved = defineOp({
  name: "link_unresolved",
  errors: [],
  title: "Broken links",
  description: "Link targets matching no file, with their sources.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ limit: Type.Optional(Limit(100, 1000)), cursor: Type.Optional(Cursor) }, { additionalProperties: false }),
  output: Type.Object({
    total: Type.Integer(),
    unresolved: Type.Array(Type.Object({ linkpath: Type.String(), count: Type.Integer(), sources: Type.Array(Type.String()) })),
    next_cursor: NextCursor,
  }),
  run(ctx, input) {
    const all = ctx.index.derived(
      "link_unresolved",
      () => unresolvedLinks(ctx.index),
      (a) => a.length,
    );
    const { items, next_cursor } = page(all, decodeCursor(input.cursor), input.limit ?? 100);
    return { total: all.length, unresolved: items, next_cursor };
  },
  summary: (o) => `${o.total} unresolved link targets`,
});

export const linkBrokenAnchors = defineOp({
  name: "link_broken_anchors",
  errors: [],
  title: "Links to missing headings and blocks",
  description: "Links to a #heading or #^block that does not exist.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ limit: Type.Optional(Limit(100, 1000)), cursor: Type.Optional(Cursor) }, { additionalProperties: false }),
  output: Type.Object({ total: Type.Integer(), anchors: Type.Array(BrokenAnchor), next_cursor: NextCursor }),
  run(ctx, input) {
    // Every page reads one list, computed once per index version (docs/decisions.md).
    const all = ctx.index.derived(
      "link_broken_anchors",
      () => brokenAnchors(ctx.index),
      (a) => a.length,
    );
    const { items, next_cursor } = page(all, decodeCursor(input.cursor), input.limit ?? 100);
    return { total: all.length, anchors: items, next_cursor };
  },
  summary: (o) => `${o.total} links to missing headings or blocks`,
});

export const linkOrphans = defineOp({
  name: "link_orphans",
  errors: [],
  title: "Notes without links",
  description: "Notes with no links in or out.",
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
