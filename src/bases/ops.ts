import { readFileSync } from "node:fs";
import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { parseNote } from "../markdown/parse.ts";
import type { OpContext } from "../ops/context.ts";
import { defineOp } from "../ops/define.ts";
import { Cursor, decodeCursor, encodeCursor, INPUT_LIMITS, Limit, NextCursor, VaultPath } from "../ops/schemas.ts";
import { LinkResolver } from "../vault/link-resolver.ts";
import { readNote, statVaultFile } from "../vault/read.ts";
import { baseBlocks } from "./blocks.ts";
import type { Entry } from "./entry.ts";
import { BASE_LIMITS, type BaseDefinition, parseBase } from "./parse.ts";
import { compileBase, NO_FILE } from "./plan.ts";
import { evaluateView, pageOfView } from "./query.ts";
import { basesResultKey, snapshotOf } from "./snapshot.ts";

const CellSchema = Type.Object(
  { type: Type.String(), value: Type.Unknown() },
  {
    description: "A typed value: type is string, number, boolean, date, datetime, duration (ms), link or file ({path, display}), list, object, null or error.",
  },
);

const Cells = Type.Record(Type.String(), CellSchema);

const Output = Type.Object({
  path: Type.Union([Type.String(), Type.Null()], { description: "The .base file or note the base came from; null for an inline base." }),
  view: Type.Object({ name: Type.String(), type: Type.String(), options: Type.Record(Type.String(), Type.Unknown()) }),
  views: Type.Array(Type.String(), { description: "Every view of the base, by name." }),
  columns: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  matched: Type.Integer({ description: "Files that pass the filters." }),
  total: Type.Integer({ description: "Rows after the view's limit." }),
  rows: Type.Array(Type.Object({ path: Type.String(), group: Type.Union([Type.Integer(), Type.Null()]), cells: Cells })),
  groups: Type.Union([Type.Array(Type.Object({ key: CellSchema, count: Type.Integer(), summaries: Cells })), Type.Null()]),
  summaries: Cells,
  next_cursor: NextCursor,
});

type Output = Static<typeof Output>;

interface LoadedBase {
  definition: BaseDefinition;
  text: string;
  source: string;
  /** The file `this` stands for. */
  thisPath: string | null;
  path: string | null;
  /** The view shown when none is asked for (an embed's `#View`); else the first. */
  defaultView?: string;
}

export const baseQuery = defineOp({
  name: "base_query",
  errors: ["path_invalid", "not_found", "parse_failed", "query_too_costly"],
  title: "Run an Obsidian base",
  description: "Run a view of an Obsidian base (a .base file or a note's base block).",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      path: Type.Optional(VaultPath),
      // Described in the operation's description: the catalogue an agent reads each turn stays small.
      base: Type.Optional(Type.String({ maxLength: BASE_LIMITS.chars, description: "Base YAML, instead of path." })),
      view: Type.Optional(Type.String({ minLength: 1, maxLength: INPUT_LIMITS.nameChars, description: "View name; default the first." })),
      limit: Type.Optional(Limit(100, 1000)),
      cursor: Type.Optional(Cursor),
    },
    { additionalProperties: false },
  ),
  output: Output,
  run(ctx, input) {
    const loaded = loadBase(ctx, input);
    const compiled = compileBase(loaded.definition, loaded.text, loaded.source);
    const views = loaded.definition.views;
    const viewName = input.view ?? loaded.defaultView;
    const viewIndex = viewName === undefined ? 0 : views.findIndex((v) => v.name === viewName);
    const view = views[viewIndex];
    if (view === undefined)
      throw new IndxError("not_found", `${loaded.source} has no view named '${input.view}'.`, { view: input.view, views: views.map((v) => v.name) });
    const broken = compiled.viewErrors[viewIndex];
    if (broken) throw broken;
    const offset = decodeCursor(input.cursor);
    const pageSize = input.limit ?? 100;
    const now = Date.now();
    // Every page of one query, and the same query repeated, read one evaluation per index version (docs/decisions.md).
    const key = `base_query\n${viewIndex}\n${loaded.thisPath ?? ""}\n${loaded.text}\n${basesResultKey(ctx.vault, loaded.text, now)}`;
    const evaluated = ctx.index.derived(
      key,
      () => {
        const snapshot = snapshotOf(ctx.index, ctx.vault);
        const thisEntry: Entry = (loaded.thisPath === null ? null : snapshot.entry(loaded.thisPath)) ?? NO_FILE;
        return evaluateView(compiled, viewIndex, { world: snapshot, thisEntry, now });
      },
      (v) => v.ordered.length,
    );
    const result = pageOfView(evaluated, offset, pageSize);
    return {
      path: loaded.path,
      view: { name: view.name, type: view.type, options: view.options },
      views: views.map((v) => v.name),
      ...result,
      next_cursor: offset + pageSize < result.total ? encodeCursor(offset + pageSize) : null,
    } satisfies Output;
  },
  summary: (o) => `${o.total} rows in view ${o.view.name}${o.path ? ` of ${o.path}` : ""}${o.groups ? `, ${o.groups.length} groups` : ""}`,
});

function loadBase(ctx: OpContext, input: { path?: string; base?: string; view?: string }): LoadedBase {
  if (input.base !== undefined) {
    const thisPath = input.path === undefined ? null : statVaultFile(ctx.vault, input.path).path;
    return { definition: parseBase(input.base, "the base"), text: input.base, source: "the base", thisPath, path: null };
  }
  if (input.path === undefined)
    throw new IndxError("validation_failed", "Give the path of a .base file or of a note with a base block, or an inline base.", {});
  const file = statVaultFile(ctx.vault, input.path);
  if (file.kind === "base") {
    const text = readBaseFile(ctx, file.path, file.size);
    return { definition: parseBase(text, file.path), text, source: file.path, thisPath: file.path, path: file.path };
  }
  if (file.kind !== "note") throw new IndxError("validation_failed", `${file.path} is neither a .base file nor a note.`, { path: file.path });
  const noteText = readNote(ctx.vault, file.path).text;
  const blocks = baseBlocks(noteText);
  if (blocks.length === 0) {
    const embedded = embeddedBase(ctx, file.path, noteText, input.view);
    if (embedded) return embedded;
    throw new IndxError("not_found", `${file.path} has no base code block and embeds no .base file (![[Name.base]]).`, { path: file.path });
  }
  // With several blocks, the view name picks the block: the first one that has a view of that name.
  let first: LoadedBase | null = null;
  for (const block of blocks) {
    // Blank lines before the YAML keep error positions on the note's own lines.
    const text = "\n".repeat(block.line - 1) + block.yaml;
    const loaded: LoadedBase = { definition: parseBase(text, file.path), text, source: file.path, thisPath: file.path, path: file.path };
    if (input.view === undefined || loaded.definition.views.some((v) => v.name === input.view)) return loaded;
    first ??= loaded;
  }
  if (first === null) throw new IndxError("internal", `${file.path} has base blocks but none was loaded`);
  return first;
}

/**
 * A note that embeds a base (`![[Books.base]]`, `![[Books.base#View]]`): the embedded file's base,
 * with `this` the embedding note, as Obsidian shows it; the view named after `#` unless one was
 * asked for. The first embed that resolves to a .base file wins.
 */
function embeddedBase(ctx: OpContext, notePath: string, text: string, view: string | undefined): LoadedBase | null {
  const resolver = new LinkResolver(ctx.index.files.paths());
  for (const link of parseNote(text).links) {
    if (!link.embed) continue;
    const target = resolver.resolve(link.linkpath, notePath);
    if (!target?.endsWith(".base")) continue;
    const file = statVaultFile(ctx.vault, target);
    const text = readBaseFile(ctx, file.path, file.size);
    const definition = parseBase(text, file.path);
    const named = link.subpath?.replace(/^#/, "");
    const loaded: LoadedBase = { definition, text, source: file.path, thisPath: notePath, path: file.path };
    if (view === undefined && named && definition.views.some((v) => v.name === named)) loaded.defaultView = named;
    return loaded;
  }
  return null;
}

function readBaseFile(ctx: OpContext, path: string, size: number): string {
  if (size > BASE_LIMITS.chars)
    throw new IndxError("payload_too_large", `${path} is ${size} bytes, over the ${BASE_LIMITS.chars}-byte limit of a base.`, {
      path,
      size,
      limit: BASE_LIMITS.chars,
    });
  return readFileSync(ctx.vault.abs(path), "utf8");
}
