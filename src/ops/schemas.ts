import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { WARNING_CODES, type WarningCode } from "../core/warnings.ts";

/** Schema pieces shared by several operations. */

/**
 * Input bounds (docs/decisions.md, "Input bounds"): far above real use, and low enough that no
 * single request can make the server work for long. The validator refuses anything beyond them.
 */
export const INPUT_LIMITS = {
  /** Tag filters in one search or listing. */
  tagFilters: 100,
  /** Characters of one tag, frontmatter key or block id. */
  nameChars: 200,
  /** Frontmatter conditions in one filter, and the characters of each value. */
  frontmatterFilters: 50,
  filterValueChars: 1_000,
  /** Characters of a vault path. */
  pathChars: 1_024,
  /** Characters of a heading, a label or a URL. */
  textLineChars: 4_096,
  /** Characters of a note's Markdown: the REST body limit, so every surface accepts the same notes. */
  noteChars: 8 * 1024 * 1024,
  /** Properties of a note's frontmatter, or fields set on a canvas item at once. */
  properties: 1_000,
  /** Nodes and edges of one canvas. */
  canvasNodes: 10_000,
  canvasEdges: 20_000,
  /** Characters of an attachment's base64: 256 MiB of bytes, far above writes.max_attachment_bytes, which decides. */
  attachmentBase64Chars: 4 * Math.ceil((256 * 1024 * 1024) / 3),
  /** Nesting of any input value (objects and arrays). */
  depth: 64,
} as const;

/**
 * The mark of an input field that names one vault file: the folder-grant check of every call
 * (src/ops/grant-check.ts) finds these fields in the operation's schema, so a new operation's
 * paths are checked without a list to keep (docs/permissions.md). `true`: the file the call
 * reads or, in a call that writes, writes; `"read"`: a file only read, even by a write.
 */
export const PATH_MARK = "x-indx-path";

/**
 * Marks an object type as a titled type with some fields changed (ai_relate's source: an AiScope
 * whose kind may also be `path`): a tool catalogue that gives the titled type in full elsewhere
 * gives only the fields that differ (src/mcp/compact-schema.ts, sharedTypesOnce).
 */
export const LIKE_MARK = "x-indx-like";

/** A vault file named in an input, marked for the grant check; `description` says what it is. */
export const VaultPathOf = (description: string) => Type.String({ minLength: 1, maxLength: INPUT_LIMITS.pathChars, description, [PATH_MARK]: true });

export const VaultPath = VaultPathOf("Vault-relative path.");

export const Limit = (def: number, max = 500) => Type.Integer({ minimum: 1, maximum: max, default: def, description: "Max items." });

export const Cursor = Type.String({ maxLength: 200, description: "From next_cursor." });

export const NextCursor = Type.Union([Type.String(), Type.Null()], { description: "Pass as cursor to get the next page; null on the last page." });

export const FrontmatterFilter = Type.Record(
  Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars }),
  Type.Union([Type.String({ maxLength: INPUT_LIMITS.filterValueChars }), Type.Number(), Type.Boolean(), Type.Null()]),
  {
    maxProperties: INPUT_LIMITS.frontmatterFilters,
    description: "{property: value}, all must match; null: empty.",
  },
);

export const TagList = Type.Array(Type.String(), { description: "Tags without '#'." });

/** Tags a caller filters by: every one must be present. */
export const TagFilter = (description: string) =>
  Type.Array(Type.String({ maxLength: INPUT_LIMITS.nameChars }), { maxItems: INPUT_LIMITS.tagFilters, description });

/** Compact allow-listed metadata (docs/contracts.md, Search): never arbitrary frontmatter. */
export const CompactMeta = Type.Object(
  {
    aliases: Type.Optional(Type.Array(Type.String())),
    date: Type.Optional(Type.String()),
    created: Type.Optional(Type.String()),
    updated: Type.Optional(Type.String()),
  },
  { description: "Allow-listed metadata: aliases and short date fields." },
);

/** A warning: its code is one of WARNING_CODES, so a new code cannot appear without its meaning. */
export const Warning = Type.Object({
  code: Type.Union(
    (Object.keys(WARNING_CODES) as WarningCode[]).map((code) => Type.Literal(code)),
    { description: "What the caller should know about the result; see WARNING_CODES." },
  ),
  message: Type.String(),
  path: Type.Optional(Type.String({ description: "The note the warning is about." })),
});
export type Warning = Static<typeof Warning>;

export const OutlineItem = Type.Object({ level: Type.Integer(), text: Type.String(), line: Type.Integer() });

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Offset cursors, opaque to callers. */
export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString("base64url");
}

export function decodeCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { o?: unknown };
    if (typeof v.o === "number" && Number.isSafeInteger(v.o) && v.o >= 0) return v.o;
  } catch {
    // fall through to the typed error
  }
  throw new IndxError("validation_failed", "The cursor is not valid; start again without it.", { field: "cursor" });
}

export function page<T>(all: T[], offset: number, limit: number): { items: T[]; next_cursor: string | null } {
  const items = all.slice(offset, offset + limit);
  return { items, next_cursor: offset + limit < all.length ? encodeCursor(offset + limit) : null };
}

export function compactMeta(frontmatter: Record<string, unknown> | null, aliases: string[]): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (aliases.length) meta.aliases = aliases;
  for (const key of ["date", "created", "updated"] as const) {
    const v = frontmatter?.[key];
    if (typeof v === "string" && v.length <= 40) meta[key] = v;
    else if (typeof v === "number") meta[key] = String(v);
  }
  return meta;
}
