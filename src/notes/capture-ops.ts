/**
 * note_capture: "save this to my inbox" in one call (docs/decisions.md, "Capture and property
 * checks"). The note goes to a folder (capture.folder, default Inbox), named after its title or
 * else the local date and time, and never replaces a file: a taken name gets " 2", " 3"….
 */
import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { wallTimeAt } from "../dates/calendar.ts";
import { defineOp } from "../ops/define.ts";
import { INPUT_LIMITS } from "../ops/schemas.ts";
import { applyPatches } from "../patch/engine.ts";
import type { PatchOp } from "../patch/schema.ts";
import type { Change, WriteIO } from "../writes/pipeline.ts";
import { DryRun, IdempotencyKey } from "../writes/schemas.ts";
import { assertStorableFrontmatter, assertWritableText, notePath } from "./write-ops.ts";

/** Characters Obsidian refuses in a file name (and `:` for Windows and macOS): each becomes a space. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what file names refuse
const UNSAFE_NAME = /[\\/:*?"<>|#^[\]\u0000-\u001f]+/g;
/** A name stays readable in a file list, well under the file system's 255 bytes. */
const MAX_NAME_CHARS = 100;
/** Past this many taken names something is wrong: say so rather than try forever. */
const MAX_SUFFIX = 1000;

/** A file name from a title: unsafe characters out, spaces collapsed, no leading dot, at most MAX_NAME_CHARS. */
export function captureName(title: string | undefined, now: number): string {
  const cleaned = (title ?? "")
    .replace(UNSAFE_NAME, " ")
    .replace(/\s+/g, " ")
    .replace(/^[.\s]+/, "")
    .trim()
    .slice(0, MAX_NAME_CHARS)
    .trim()
    .replace(/[.\s]+$/, "");
  if (cleaned) return cleaned;
  const t = wallTimeAt(now);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${t.year}-${two(t.month)}-${two(t.day)} ${two(t.hour)}${two(t.minute)}${two(t.second)}`;
}

export const noteCapture = defineOp({
  name: "note_capture",
  errors: ["path_invalid", "encoding_unsupported", "idempotency_key_reused", "already_exists", "payload_too_large"],
  title: "Capture a note to the inbox",
  description: "Save text as a new note (default folder Inbox); never overwrites.",
  scope: "vault:write",
  dryRunNeedsRead: true,
  safe: false,
  input: Type.Object(
    {
      text: Type.String({ maxLength: INPUT_LIMITS.noteChars, description: "Markdown." }),
      title: Type.Optional(Type.String({ maxLength: 300, description: "Names the note; default: the date-time." })),
      folder: Type.Optional(Type.String({ maxLength: INPUT_LIMITS.pathChars, description: "Default: capture.folder." })),
      frontmatter: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), { maxProperties: INPUT_LIMITS.properties, description: "Frontmatter properties." }),
      ),
      dry_run: Type.Optional(DryRun),
      idempotency_key: Type.Optional(IdempotencyKey),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    path: Type.String(),
    etag: Type.String(),
    created: Type.Boolean(),
    dry_run: Type.Boolean(),
  }),
  async run(ctx, input) {
    const folderInput = input.folder ?? ctx.vault.config.str("capture.folder") ?? "";
    const folder = folderInput.trim() === "" || folderInput.trim() === "/" ? "" : ctx.vault.safePath(folderInput);
    const name = captureName(input.title, Date.now());
    const pathFor = (n: number) => notePath(ctx, `${folder ? `${folder}/` : ""}${name}${n > 1 ? ` ${n}` : ""}.md`);
    let text = input.text;
    if (input.frontmatter && Object.keys(input.frontmatter).length > 0) {
      if (/^---\r?\n/.test(text)) throw new IndxError("validation_failed", "Give the frontmatter either in `frontmatter` or at the top of `text`, not both.");
      const ops: PatchOp[] = Object.entries(input.frontmatter).map(([key, value]) => ({ op: "set_frontmatter", key, value }));
      text = applyPatches(text, ops).text;
    }
    const first = pathFor(1);
    assertWritableText(ctx, first, text);
    assertStorableFrontmatter(first, text, null);
    // The free name is chosen inside the write's plan, under the write lock, and written only if still absent.
    const plan = (io: WriteIO) => {
      for (let n = 1; n <= MAX_SUFFIX; n++) {
        const path = pathFor(n);
        if (io.read(path).exists) continue;
        const changes: Change[] = [{ type: "write", path, text, expect: { absent: true } }];
        return { changes, value: path };
      }
      throw new IndxError("already_exists", `${first} and ${MAX_SUFFIX - 1} numbered copies exist: give another title.`, { path: first });
    };
    if (input.dry_run) {
      const preview = ctx.writer.preview(plan);
      return { path: preview.value, etag: preview.etags[preview.value] ?? "", created: true, dry_run: true };
    }
    const done = await ctx.writer.transact("note_capture", [folder || "."], plan);
    return { path: done.value, etag: done.etags[done.value] ?? "", created: true, dry_run: false };
  },
  summary: (o) => `${o.dry_run ? "would capture" : "captured"} ${o.path} (etag ${o.etag})`,
});
