import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { formatMoment } from "../dates/moment-format.ts";
import { defineOp } from "../ops/define.ts";
import { hasScope } from "../ops/invoke.ts";
import { Nullable, Warning } from "../ops/schemas.ts";
import { readNote } from "../vault/read.ts";
import type { Vault } from "../vault/vault.ts";
import type { Change } from "../writes/pipeline.ts";
import { periodicNote, periodicNoteText } from "./note.ts";
import { PERIODS } from "./settings.ts";

/** The note's text and etag, or null when there is no note at `path`. */
function readIfThere(vault: Vault, path: string): { etag: string; content: string } | null {
  try {
    const note = readNote(vault, path);
    return { etag: note.etag, content: note.text };
  } catch (err) {
    if (err instanceof IndxError && err.code === "not_found") return null;
    throw err;
  }
}

export const dailyNote = defineOp({
  name: "daily_note",
  errors: ["not_found", "patch_target_not_found", "encoding_unsupported"],
  title: "Today's (or a given day's) daily note",
  description: "The daily (or other periodic) note of a date, per the vault's settings.",
  scope: "vault:read",
  // With create it writes a note (the scope check for that is in run); it never replaces one.
  safe: false,
  input: Type.Object(
    {
      date: Type.Optional(Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", maxLength: 10, description: "YYYY-MM-DD; default today." })),
      tz: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "IANA zone for today." })),
      period: Type.Optional(
        Type.Union(
          PERIODS.map((p) => Type.Literal(p)),
          { default: "daily", description: "Default daily." },
        ),
      ),
      create: Type.Optional(Type.Boolean({ default: false, description: "Create it from the template if missing (vault:write)." })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    path: Type.String(),
    period: Type.String(),
    date: Type.String({ description: "First day of the period, YYYY-MM-DD." }),
    exists: Type.Boolean({ description: "Whether the note exists now (after a create)." }),
    created: Type.Boolean({ description: "True when this call created it." }),
    etag: Nullable(Type.String()),
    content: Nullable(Type.String({ description: "The note's text; null when it does not exist or is not UTF-8 text." })),
    template: Nullable(Type.String({ description: "The template the settings name (its vault path once found)." })),
    warnings: Type.Array(Warning),
  }),
  async run(ctx, input) {
    if (input.create && !hasScope(ctx.scopes, "vault:write"))
      throw new IndxError("forbidden", "daily_note with create needs the vault:write scope", { operation: "daily_note", needed: "vault:write" });
    const note = periodicNote(ctx.vault, { period: input.period ?? "daily", date: input.date, tz: input.tz });
    const base = { path: note.path, period: note.settings.period, date: formatMoment(note.start, "YYYY-MM-DD"), template: note.settings.template };
    if (!input.create) {
      const existing = readIfThere(ctx.vault, note.path);
      return existing
        ? { ...base, exists: true, created: false, ...existing, warnings: [] }
        : { ...base, exists: false, created: false, etag: null, content: null, warnings: [] };
    }
    const initial = periodicNoteText(ctx.vault, note);
    // Created only if absent, in one locked step: a second call, or a race, finds the first one's note.
    const done = await ctx.writer.transact("daily_note", [note.path], (io) => {
      const before = io.read(note.path);
      const changes: Change[] = before.exists ? [] : [{ type: "write", path: note.path, text: initial.text, expect: { absent: true } }];
      return { changes, value: before };
    });
    const before = done.value;
    if (before.exists) return { ...base, exists: true, created: false, etag: before.etag, content: before.text, warnings: done.warnings };
    const warnings = [...done.warnings];
    if (initial.missing)
      warnings.push({
        code: "template_missing" as const,
        message: `The template ${initial.missing} was not found; the note was created empty.`,
        path: note.path,
      });
    const template = initial.template?.path ?? base.template;
    return { ...base, template, exists: true, created: true, etag: done.etags[note.path] ?? null, content: initial.text, warnings };
  },
  summary: (o) => `${o.created ? "created" : o.exists ? "found" : "no note at"} ${o.path} (${o.period}, ${o.date})`,
});
