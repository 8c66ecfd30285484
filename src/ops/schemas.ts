import { type TSchema, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";

/** Schema pieces shared by several operations. */

export const VaultPath = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: "Vault-relative POSIX path, e.g. 'Projects/Foo.md'.",
});

export const Limit = (def: number, max = 500) => Type.Integer({ minimum: 1, maximum: max, default: def, description: "Maximum items to return." });

export const Cursor = Type.String({ maxLength: 200, description: "Opaque cursor from a previous page's next_cursor." });

export const NextCursor = Type.Union([Type.String(), Type.Null()], { description: "Pass as cursor to get the next page; null on the last page." });

export const FrontmatterFilter = Type.Record(
  Type.String({ minLength: 1, maxLength: 200 }),
  Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
  {
    description:
      "Frontmatter conditions, all of which must hold: {key: value} matches when the property equals the value, or contains it when the property is a list; null matches a missing or empty property.",
  },
);

export const TagList = Type.Array(Type.String(), { description: "Tags without '#'." });

/** Compact allow-listed metadata (seed 004): never arbitrary frontmatter. */
export const CompactMeta = Type.Object(
  {
    aliases: Type.Optional(Type.Array(Type.String())),
    date: Type.Optional(Type.String()),
    created: Type.Optional(Type.String()),
    updated: Type.Optional(Type.String()),
  },
  { description: "Allow-listed metadata: aliases and short date fields." },
);

export const Warning = Type.Object({
  code: Type.String(),
  message: Type.String(),
  path: Type.Optional(Type.String()),
});

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
