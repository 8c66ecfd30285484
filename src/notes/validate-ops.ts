/**
 * vault_validate_frontmatter: notes whose properties break the vault's own rules, without a model
 * (docs/decisions.md, "Capture and property checks"): a value that does not fit the type
 * .obsidian/types.json declares for its key, or a key that config `properties.required` names and
 * the note lacks. Empty values fit every type, as Obsidian shows them as empty fields.
 */
import { Type } from "@sinclair/typebox";
import { type PropertyType, readDeclaredTypes } from "../bases/properties.ts";
import { frontmatterOf } from "../index/storage/json-columns.ts";
import { defineOp } from "../ops/define.ts";
import { Cursor, decodeCursor, Limit, NextCursor, page } from "../ops/schemas.ts";
import { globToRegExp } from "../vault/glob.ts";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

const isEmpty = (v: unknown) => v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);

/** Why a value does not fit a declared type, or null when it does. */
export function typeMismatch(type: PropertyType, value: unknown): string | null {
  if (isEmpty(value)) return null;
  const got = Array.isArray(value) ? "a list" : value === null ? "empty" : typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
  switch (type) {
    case "text":
      return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? null : `is declared text but holds ${got}`;
    case "number":
      return typeof value === "number" ? null : `is declared a number but holds ${got}`;
    case "checkbox":
      return typeof value === "boolean" ? null : `is declared a checkbox (true or false) but holds ${got}`;
    case "date":
      return typeof value === "string" && DATE.test(value) ? null : `is declared a date (YYYY-MM-DD) but holds ${got}`;
    case "datetime":
      return typeof value === "string" && (DATETIME.test(value) || DATE.test(value)) ? null : `is declared a date and time (YYYY-MM-DDTHH:mm) but holds ${got}`;
    case "multitext":
    case "tags":
    case "aliases":
      return Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number") ? null : `is declared a list of text but holds ${got}`;
    default:
      return null;
  }
}

const Problem = Type.Object({
  path: Type.String(),
  key: Type.String(),
  reason: Type.Union([Type.Literal("type_mismatch"), Type.Literal("missing_required")]),
  message: Type.String(),
});

export const vaultValidateFrontmatter = defineOp({
  name: "vault_validate_frontmatter",
  errors: ["path_invalid"],
  title: "Check notes' properties",
  description: "Notes whose properties break their declared types or lack required ones.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      path_glob: Type.Optional(Type.String({ maxLength: 500, description: "Path glob, e.g. 'Projects/**'." })),
      limit: Type.Optional(Limit(100, 1000)),
      cursor: Type.Optional(Cursor),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    checked: Type.Integer({ description: "Notes checked." }),
    total: Type.Integer({ description: "Problems found." }),
    problems: Type.Array(Problem),
    next_cursor: NextCursor,
  }),
  run(ctx, input) {
    const declared = readDeclaredTypes(ctx.vault.root);
    const required = ctx.vault.config.list("properties.required");
    const glob = input.path_glob ? globToRegExp(input.path_glob) : null;
    const notes = ctx.index.notes.list("path").filter((n) => !glob || glob.test(n.path));
    const problems: (typeof Problem.static)[] = [];
    for (const note of notes) {
      const fm = frontmatterOf(note) ?? {};
      const keys = new Map(Object.keys(fm).map((k) => [k.toLowerCase(), k]));
      for (const key of required) {
        const present = keys.get(key.toLowerCase());
        if (present === undefined || isEmpty(fm[present]))
          problems.push({ path: note.path, key, reason: "missing_required", message: `${key} is required (properties.required) but is missing or empty` });
      }
      for (const [key, value] of Object.entries(fm)) {
        const type = declared.types.get(key.toLowerCase());
        const mismatch = type ? typeMismatch(type, value) : null;
        if (mismatch) problems.push({ path: note.path, key, reason: "type_mismatch", message: `${key} ${mismatch}` });
      }
    }
    const { items, next_cursor } = page(problems, decodeCursor(input.cursor), input.limit ?? 100);
    return { checked: notes.length, total: problems.length, problems: items, next_cursor };
  },
  summary: (o) => `${o.total} property problem${o.total === 1 ? "" : "s"} in ${o.checked} notes`,
});
