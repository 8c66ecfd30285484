import { readFileSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { etagOf } from "../core/hash.ts";
import type { OpContext } from "../ops/context.ts";
import { defineOp } from "../ops/define.ts";
import { VaultPath, Warning } from "../ops/schemas.ts";
import { notUtf8 } from "../writes/encoding.ts";
import { assertVersion, type Expect, type FileState } from "../writes/pipeline.ts";
import { IdempotencyKey, IfMatch, IfNotExists, normalizeEtag } from "../writes/schemas.ts";
import { applyCanvasPatches, CanvasPatchOpSchema } from "./patch.ts";
import { CanvasSchema } from "./schema.ts";
import { parseCanvas, serializeCanvas, validateCanvas } from "./validate.ts";

function canvasPath(ctx: OpContext, input: unknown): string {
  const path = ctx.vault.safePath(input);
  if (!path.toLowerCase().endsWith(".canvas"))
    throw new IndxError("path_invalid", `${path} is not a canvas (canvas files end in .canvas)`, { reason: "wrong_kind" });
  return path;
}

function existingCanvas(state: FileState, ifMatch: string | undefined) {
  if (state.content === "not_utf8") throw notUtf8(state.path);
  if (!state.exists || state.text === null) throw new IndxError("not_found", `No canvas at ${state.path}`, { path: state.path });
  if (state.etag === null) throw new IndxError("internal", `${state.path} exists but was read without an etag`);
  assertVersion(state, ifMatch);
  return { doc: parseCanvas(state.text), text: state.text, etag: state.etag };
}

const WrittenCanvas = Type.Object({
  path: Type.String(),
  etag: Type.String({ description: "Pass this as if_match on your next write." }),
  created: Type.Boolean(),
  changed: Type.Boolean({ description: "False when the canvas was already exactly this." }),
  nodes: Type.Integer(),
  edges: Type.Integer(),
  warnings: Type.Array(Warning),
});

export const canvasRead = defineOp({
  name: "canvas_read",
  errors: ["path_invalid", "not_found", "parse_failed"],
  title: "Read a canvas",
  description: "Read a .canvas file.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({ path: VaultPath }, { additionalProperties: false }),
  output: Type.Object({ path: Type.String(), etag: Type.String(), canvas: CanvasSchema }),
  run(ctx, input) {
    const path = canvasPath(ctx, input.path);
    let bytes: Buffer;
    try {
      bytes = readFileSync(ctx.vault.abs(path));
    } catch {
      throw new IndxError("not_found", `No canvas at ${path}`, { path });
    }
    return { path, etag: etagOf(bytes), canvas: parseCanvas(new TextDecoder().decode(bytes)) };
  },
  summary: (o) => `${o.path}: ${o.canvas.nodes?.length ?? 0} nodes, ${o.canvas.edges?.length ?? 0} edges (etag ${o.etag})`,
});

export const canvasWrite = defineOp({
  name: "canvas_write",
  errors: ["path_invalid", "not_found", "patch_target_not_found", "encoding_unsupported", "idempotency_key_reused", "already_exists", "etag_mismatch"],
  title: "Create or replace a canvas",
  description: "Create or replace a .canvas file (JSON Canvas 1.0).",
  scope: "vault:write",
  destructive: true,
  safe: false,
  input: Type.Object(
    {
      path: VaultPath,
      canvas: CanvasSchema,
      if_match: Type.Optional(IfMatch),
      if_not_exists: Type.Optional(IfNotExists),
      idempotency_key: Type.Optional(IdempotencyKey),
    },
    { additionalProperties: false },
  ),
  output: WrittenCanvas,
  async run(ctx, input) {
    const path = canvasPath(ctx, input.path);
    const doc = validateCanvas(input.canvas);
    const ifMatch = normalizeEtag(input.if_match);
    const expect: Expect = input.if_not_exists ? { absent: true } : ifMatch ? { etag: ifMatch } : { anything: true };
    const done = await ctx.writer.transact("canvas_write", [path], (io) => {
      const before = io.read(path);
      const text = serializeCanvas(doc, before.text ?? undefined);
      const changed = !(before.exists && before.text === text) || input.if_not_exists === true;
      if (!changed) assertVersion(before, ifMatch);
      return { changes: changed ? [{ type: "write" as const, path, text, expect }] : [], value: { created: !before.exists, changed, etag: before.etag } };
    });
    // A missing canvas is always written, so only an unchanged one falls back to the etag it was read with.
    const etag = done.etags[path] ?? done.value.etag;
    if (etag === null) throw new IndxError("internal", `The write of ${path} returned no etag`);
    return {
      path,
      etag,
      created: done.value.created,
      changed: done.value.changed,
      nodes: doc.nodes?.length ?? 0,
      edges: doc.edges?.length ?? 0,
      warnings: done.warnings,
    };
  },
  summary: (o) => `${o.created ? "created" : o.changed ? "replaced" : "unchanged"} ${o.path}: ${o.nodes} nodes, ${o.edges} edges (etag ${o.etag})`,
});

export const canvasPatch = defineOp({
  name: "canvas_patch",
  errors: ["path_invalid", "not_found", "patch_target_not_found", "encoding_unsupported", "idempotency_key_reused", "etag_mismatch"],
  title: "Edit a canvas with structured ops",
  description: "Edit nodes and edges of a .canvas file.",
  scope: "vault:write",
  destructive: true,
  safe: false,
  input: Type.Object(
    {
      path: VaultPath,
      ops: Type.Array(CanvasPatchOpSchema, { minItems: 1, maxItems: 500, description: "In order; all or nothing." }),
      if_match: Type.Optional(IfMatch),
      idempotency_key: Type.Optional(IdempotencyKey),
    },
    { additionalProperties: false },
  ),
  output: WrittenCanvas,
  async run(ctx, input) {
    const path = canvasPath(ctx, input.path);
    const ifMatch = normalizeEtag(input.if_match);
    const done = await ctx.writer.transact("canvas_patch", [path], (io) => {
      const before = io.read(path);
      const existing = existingCanvas(before, ifMatch);
      const doc = validateCanvas(applyCanvasPatches(existing.doc, input.ops));
      const text = serializeCanvas(doc, existing.text);
      const changed = text !== existing.text;
      return {
        changes: changed ? [{ type: "write" as const, path, text, expect: { etag: existing.etag } }] : [],
        value: { doc, changed, etag: existing.etag },
      };
    });
    const doc = done.value.doc;
    return {
      path,
      etag: done.etags[path] ?? done.value.etag,
      created: false,
      changed: done.value.changed,
      nodes: doc.nodes?.length ?? 0,
      edges: doc.edges?.length ?? 0,
      warnings: done.warnings,
    };
  },
  summary: (o, i) =>
    `${o.changed ? "patched" : "unchanged"} ${o.path} with ${i.ops.length} op${i.ops.length === 1 ? "" : "s"}: ${o.nodes} nodes, ${o.edges} edges`,
});
