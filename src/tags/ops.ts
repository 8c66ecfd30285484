import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { tagsOf } from "../index/storage/json-columns.ts";
import { defineOp } from "../ops/define.ts";
import { Cursor, decodeCursor, Limit, NextCursor, page } from "../ops/schemas.ts";
import { filterNoteIds, normalizeTag } from "../search/filter.ts";

export const tagList = defineOp({
  name: "tag_list",
  errors: [],
  title: "All tags",
  description: "Tags with their note counts.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      prefix: Type.Optional(Type.String({ maxLength: 200, description: "Only this tag and its nested tags." })),
      // A page, most used first: a vault of thousands of tags is not one answer (issue 30).
      limit: Type.Optional(Limit(200, 1000)),
      cursor: Type.Optional(Cursor),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    total: Type.Integer({ description: "Tags in all, over every page." }),
    tags: Type.Array(Type.Object({ tag: Type.String(), count: Type.Integer() })),
    next_cursor: NextCursor,
  }),
  run(ctx, input) {
    const rows = ctx.index.tags.counts();
    const prefix = input.prefix ? normalizeTag(input.prefix) : null;
    const tags = rows
      .filter((r) => !prefix || r.tagLower === prefix || r.tagLower.startsWith(`${prefix}/`))
      .map((r) => ({ tag: r.tag, count: r.count }))
      .sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag));
    const { items, next_cursor } = page(tags, decodeCursor(input.cursor), input.limit ?? 200);
    return { total: tags.length, tags: items, next_cursor };
  },
  summary: (o) => `${o.total} tags${o.next_cursor ? ` (${o.tags.length} on this page)` : ""}`,
});

export const tagNotes = defineOp({
  name: "tag_notes",
  errors: ["path_invalid", "not_found"],
  title: "Notes with a tag",
  description: "Notes with a tag or its nested tags.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      tag: Type.String({ minLength: 1, maxLength: 200, description: "Tag ('#' optional)." }),
      limit: Type.Optional(Limit(100, 1000)),
      cursor: Type.Optional(Cursor),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    tag: Type.String(),
    total: Type.Integer(),
    notes: Type.Array(Type.Object({ path: Type.String(), title: Type.String(), tags: Type.Array(Type.String()) })),
    next_cursor: NextCursor,
  }),
  run(ctx, input) {
    const tag = normalizeTag(input.tag);
    if (!tag) throw new IndxError("validation_failed", "tag is empty", { field: "tag" });
    const ids = filterNoteIds(ctx.index, { tag: [tag] }) ?? new Set<number>();
    const rows = ctx.index.notes.list("path").filter((r) => ids.has(r.id));
    const { items, next_cursor } = page(rows, decodeCursor(input.cursor), input.limit ?? 100);
    return {
      tag,
      total: rows.length,
      notes: items.map((r) => ({ path: r.path, title: r.title, tags: tagsOf(r) })),
      next_cursor,
    };
  },
  summary: (o) => `${o.total} notes tagged #${o.tag}`,
});
