import { type Static, Type } from "@sinclair/typebox";
import { EXPRESSION_LIMITS } from "../bases/expr/limits.ts";
import { noteWhere, noteWhereKey } from "../bases/where.ts";
import { IndxError } from "../core/errors.ts";
import { baseTitle } from "../index/build/file-rows.ts";
import { aliasesOf, frontmatterOf, tagsOf } from "../index/storage/json-columns.ts";
import { AnchorChecker } from "../links/anchors.ts";
import { Backlink, ForwardLink, toBacklink, toForwardLink } from "../links/graph.ts";
import { TypedLinks } from "../links/typed.ts";
import { parseNote } from "../markdown/parse.ts";
import type { OpContext } from "../ops/context.ts";
import { defineOp } from "../ops/define.ts";
import {
  CompactMeta,
  Cursor,
  compactMeta,
  decodeCursor,
  encodeCursor,
  FrontmatterFilter,
  Limit,
  NextCursor,
  Nullable,
  OutlineItem,
  page,
  TagFilter,
  TagList,
  VaultPath,
} from "../ops/schemas.ts";
import { filterNoteIds } from "../search/filter.ts";
import { LinkResolver } from "../vault/link-resolver.ts";
import { readNote, statVaultFile } from "../vault/read.ts";
import { sliceLines } from "./line-range.ts";

const INCLUDES = ["frontmatter", "body", "content", "outline", "links", "backlinks", "tags", "tasks"] as const;
const DEFAULT_INCLUDE = ["frontmatter", "body", "outline", "tags"];
/** Parts that hold the whole text: a line range reads part of it instead. */
const WHOLE_TEXT = new Set(["body", "content"]);

export const LineRangeOutput = Type.Object(
  {
    from: Type.Integer({ description: "First line held (1-based)." }),
    to: Type.Integer({ description: "Last line held (from − 1 when none is)." }),
    total_lines: Type.Integer({ description: "Lines in the whole note." }),
    text: Type.String({ description: "The lines as on disk, with their line breaks." }),
  },
  { description: "The lines asked for with from/lines; the etag and size stay the whole note's." },
);

const NoteReadOutput = Type.Object({
  path: Type.String(),
  id: Type.String(),
  title: Type.String(),
  etag: Type.String(),
  size: Type.Integer(),
  mtime: Type.String(),
  content_type: Type.Literal("text/markdown"),
  meta: CompactMeta,
  frontmatter: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  frontmatter_error: Type.Optional(Type.String()),
  body: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  outline: Type.Optional(Type.Array(OutlineItem)),
  links: Type.Optional(Type.Array(ForwardLink)),
  backlinks: Type.Optional(Type.Array(Backlink)),
  tags: Type.Optional(TagList),
  tasks: Type.Optional(Type.Array(Type.Object({ line: Type.Integer(), status: Type.String(), checked: Type.Boolean(), text: Type.String() }))),
  range: Type.Optional(LineRangeOutput),
});

export const noteRead = defineOp({
  name: "note_read",
  errors: ["path_invalid", "not_found", "payload_too_large", "parse_failed"],
  title: "Read a note",
  description: "Read a note (etag, title and the parts asked for), or some lines of it.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      path: VaultPath,
      include: Type.Optional(
        Type.Array(Type.Union(INCLUDES.map((i) => Type.Literal(i))), {
          maxItems: INCLUDES.length,
          // No schema default: without include, a line range returns no parts and a whole read the default ones.
          description: `Parts to return; default ${DEFAULT_INCLUDE.join(", ")}.`,
        }),
      ),
      from: Type.Optional(Type.Integer({ minimum: 1, description: "First line to read (1-based)." })),
      lines: Type.Optional(Type.Integer({ minimum: 1, description: "Lines to read; default: to the end." })),
      allow_large: Type.Optional(Type.Boolean({ description: "Read past retrieval.max_note_bytes.", default: false })),
    },
    { additionalProperties: false },
  ),
  output: NoteReadOutput,
  run(ctx, input) {
    const ranged = input.from !== undefined || input.lines !== undefined;
    const include = new Set(input.include ?? (ranged ? [] : DEFAULT_INCLUDE));
    if (ranged && [...include].some((part) => WHOLE_TEXT.has(part)))
      throw new IndxError("validation_failed", "A line range reads part of the note; do not ask for body or content with it.", { field: "include" });
    // The size limit bounds what is returned: a line range of a large note is read whole and checked below.
    const note = readNote(ctx.vault, input.path, { allowLarge: input.allow_large || ranged });
    const range = ranged ? sliceLines(note.text, input.from ?? 1, input.lines) : null;
    const limit = ctx.vault.config.int("retrieval.max_note_bytes");
    const rangeBytes = range ? Buffer.byteLength(range.text) : 0;
    if (range && rangeBytes > limit && !input.allow_large)
      throw new IndxError(
        "payload_too_large",
        `Lines ${range.from}–${range.to} of ${note.path} are ${rangeBytes} bytes, over the ${limit}-byte read limit: ask for fewer lines, or pass allow_large.`,
        { path: note.path, size: rangeBytes, limit },
      );
    const typed = () => TypedLinks.fromConfig(ctx.vault.config);
    const parsed = parseNote(note.text);
    const fmTitle = parsed.frontmatter?.title;
    const out: Static<typeof NoteReadOutput> = {
      path: note.path,
      id: note.path,
      title: typeof fmTitle === "string" && fmTitle.trim() ? fmTitle.trim() : baseTitle(note.path),
      etag: note.etag,
      size: note.size,
      mtime: note.mtime,
      content_type: "text/markdown",
      meta: compactMeta(parsed.frontmatter, parsed.aliases),
    };
    if (include.has("frontmatter")) {
      out.frontmatter = parsed.frontmatter;
      if (parsed.frontmatterError) out.frontmatter_error = parsed.frontmatterError;
    }
    if (include.has("body")) out.body = note.text.slice(parsed.bodyOffset);
    if (include.has("content")) out.content = note.text;
    if (include.has("outline")) out.outline = parsed.headings.map((h) => ({ level: h.level, text: h.text, line: h.line }));
    if (include.has("tags")) out.tags = parsed.tags;
    if (include.has("tasks")) out.tasks = parsed.tasks;
    if (include.has("links")) {
      const resolver = new LinkResolver(ctx.index.files.paths());
      const anchors = new AnchorChecker(ctx.index);
      out.links = parsed.links.map((l) => {
        const row = {
          linkpath: l.linkpath,
          subpath: l.subpath,
          display: l.display,
          raw: l.raw,
          target: resolver.resolve(l.linkpath, note.path),
          embed: l.embed,
          syntax: l.syntax,
          line: l.line,
          key: l.key ?? null,
          property: l.rel ?? null,
        };
        return toForwardLink(row, typed(), anchors);
      });
    }
    if (include.has("backlinks")) out.backlinks = ctx.index.links.backlinks(note.path).map((r) => toBacklink(r, typed()));
    if (range) out.range = range;
    return out;
  },
  summary: (o) => `${o.path}${o.range ? ` lines ${o.range.from}–${o.range.to} of ${o.range.total_lines}` : ""} (${o.size} bytes, etag ${o.etag})`,
});

export const noteOutline = defineOp({
  name: "note_outline",
  errors: [],
  title: "Headings of a note",
  description: "A note's headings with levels and lines.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ path: VaultPath }, { additionalProperties: false }),
  output: Type.Object({ path: Type.String(), etag: Type.String(), outline: Type.Array(OutlineItem) }),
  run(ctx, input) {
    const note = readNote(ctx.vault, input.path, { allowLarge: true });
    const outline = parseNote(note.text).headings.map((h) => ({ level: h.level, text: h.text, line: h.line }));
    return { path: note.path, etag: note.etag, outline };
  },
  summary: (o) => `${o.path}: ${o.outline.length} headings`,
});

export const noteExists = defineOp({
  name: "note_exists",
  errors: ["path_invalid", "not_found"],
  title: "Does a note exist",
  description: "Whether a file exists.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ path: VaultPath }, { additionalProperties: false }),
  output: Type.Object({ path: Type.String(), exists: Type.Boolean(), kind: Nullable(Type.String()) }),
  run(ctx, input) {
    try {
      const f = statVaultFile(ctx.vault, input.path);
      return { path: f.path, exists: true, kind: f.kind };
    } catch (err) {
      if (err instanceof IndxError && err.code === "not_found") {
        const path = ctx.vault.safePath(input.path);
        return { path, exists: false, kind: null };
      }
      throw err;
    }
  },
  summary: (o) => `${o.path} ${o.exists ? "exists" : "does not exist"}`,
});

const NoteListItem = Type.Object({
  path: Type.String(),
  title: Type.String(),
  tags: TagList,
  size: Type.Integer(),
  mtime: Type.String(),
  meta: CompactMeta,
});

/** A row of note_list as the index gives it. */
type ListedNote = ReturnType<OpContext["index"]["notes"]["list"]>[number];

function listed(items: readonly ListedNote[], total: number, next_cursor: string | null) {
  return {
    notes: items.map((r) => ({
      path: r.path,
      title: r.title,
      tags: tagsOf(r),
      size: r.size,
      mtime: new Date(r.mtimeMs).toISOString(),
      meta: compactMeta(frontmatterOf(r), aliasesOf(r)),
    })),
    total,
    next_cursor,
  };
}

export const noteList = defineOp({
  name: "note_list",
  errors: ["path_invalid", "not_found"],
  title: "List notes",
  description: "List notes, filtered and sorted.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      path_glob: Type.Optional(Type.String({ maxLength: 500, description: "Path glob, e.g. 'Projects/**'." })),
      tag: Type.Optional(TagFilter("Only notes with all these tags.")),
      frontmatter: Type.Optional(FrontmatterFilter),
      // Explained in the operation's description: the catalogue an agent reads each turn stays small.
      where: Type.Optional(Type.String({ maxLength: EXPRESSION_LIMITS.chars, description: "Bases filter expression." })),
      sort: Type.Optional(Type.Union([Type.Literal("path"), Type.Literal("mtime")], { default: "path", description: "mtime: newest first." })),
      limit: Type.Optional(Limit(50, 1000)),
      cursor: Type.Optional(Cursor),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ notes: Type.Array(NoteListItem), total: Type.Integer(), next_cursor: NextCursor }),
  run(ctx, input) {
    const { path_glob, tag, frontmatter, where: source, sort = "path" } = input;
    const offset = decodeCursor(input.cursor);
    const limit = input.limit ?? 50;
    // Without a filter a page is read alone: the whole listing kept per index version was made
    // again after every write, 10–30 ms at 5,000 notes (docs/decisions.md, "Writes under load").
    if (path_glob === undefined && tag === undefined && frontmatter === undefined && source === undefined) {
      const total = ctx.index.notes.listCount();
      return listed(ctx.index.notes.listPage(sort, offset, limit), total, offset + limit < total ? encodeCursor(offset + limit) : null);
    }
    // Every page of one filtered listing reads the same result, computed once per index version (docs/decisions.md).
    const key = `note_list\n${JSON.stringify([path_glob, tag, frontmatter, source, sort])}\n${source === undefined ? "" : noteWhereKey(ctx.vault, source)}`;
    const rows = ctx.index.derived(
      key,
      () => {
        const allowed = filterNoteIds(ctx.index, input);
        const where = source === undefined ? null : noteWhere(ctx.index, ctx.vault, source);
        return ctx.index.notes.list(sort).filter((r) => (!allowed || allowed.has(r.id)) && (!where || where(r)));
      },
      (r) => r.length,
    );
    const { items, next_cursor } = page(rows, offset, limit);
    return listed(items, rows.length, next_cursor);
  },
  summary: (o) => `${o.notes.length} of ${o.total} notes${o.next_cursor ? " (more available)" : ""}`,
});
