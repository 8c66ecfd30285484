import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { canvasPatch } from "../../../src/canvas/ops.ts";
import { ERROR_CODES, IndxError } from "../../../src/core/errors.ts";
import { noteMove } from "../../../src/notes/move-ops.ts";
import { notePatch, noteWrite } from "../../../src/notes/write-ops.ts";
import { tagRename } from "../../../src/tags/rename-ops.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** "café" in Latin-1: 0xE9 alone is not valid UTF-8. */
const latin1 = (text: string) => Buffer.from(text, "latin1");
const LATIN1_NOTE = latin1("# Caf\u00e9\n\nSee [[Target]] and #alpha here.\n");

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

const bytesOf = (rel: string) => readFileSync(join(sb!.vault, rel));

async function refusal(run: () => Promise<unknown>): Promise<IndxError> {
  const err = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IndxError);
  return err as IndxError;
}

describe("files that are not valid UTF-8 are never rewritten around an edit", () => {
  test("note_patch refuses with encoding_unsupported (422) and the bytes stay as they were", async () => {
    sb = sandbox({ "Latin.md": LATIN1_NOTE });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const err = await refusal(() => invoke(notePatch, ctx, { path: "Latin.md", ops: [{ op: "append_body", markdown: "more\n" }] }));
    expect(err.code).toBe("encoding_unsupported");
    expect(ERROR_CODES.encoding_unsupported.http).toBe(422);
    expect(err.message).toContain("not valid UTF-8");
    expect(err.details).toMatchObject({ path: "Latin.md" });
    expect(bytesOf("Latin.md").equals(LATIN1_NOTE)).toBe(true);
    ctx.close();
  });

  test("note_move refuses when a note whose links it must rewrite is not UTF-8: nothing moves", async () => {
    sb = sandbox({ "Latin.md": LATIN1_NOTE, "Target.md": "# Target\n" });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const err = await refusal(() => invoke(noteMove, ctx, { from: "Target.md", to: "Renamed.md" }));
    expect(err.code).toBe("encoding_unsupported");
    expect(err.details).toMatchObject({ path: "Latin.md" });
    expect(existsSync(join(sb.vault, "Target.md"))).toBe(true);
    expect(bytesOf("Latin.md").equals(LATIN1_NOTE)).toBe(true);
    // Without link updates nothing of that note is rewritten, so the move goes ahead.
    await invoke(noteMove, ctx, { from: "Target.md", to: "Renamed.md", update_links: false });
    expect(existsSync(join(sb.vault, "Renamed.md"))).toBe(true);
    expect(bytesOf("Latin.md").equals(LATIN1_NOTE)).toBe(true);
    ctx.close();
  });

  test("tag_rename refuses when a note carrying the tag is not UTF-8: no note changes", async () => {
    sb = sandbox({ "Latin.md": LATIN1_NOTE, "Utf8.md": "# Fine\n\n#alpha too\n" });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const err = await refusal(() => invoke(tagRename, ctx, { from: "alpha", to: "beta" }));
    expect(err.code).toBe("encoding_unsupported");
    expect(bytesOf("Latin.md").equals(LATIN1_NOTE)).toBe(true);
    expect(bytesOf("Utf8.md").toString()).toBe("# Fine\n\n#alpha too\n");
    ctx.close();
  });

  test("canvas_patch refuses a canvas that is not UTF-8", async () => {
    const canvas = latin1('{"nodes":[{"id":"a","type":"text","text":"caf\u00e9","x":0,"y":0,"width":10,"height":10}],"edges":[]}');
    sb = sandbox({ "Board.canvas": canvas });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const err = await refusal(() => invoke(canvasPatch, ctx, { path: "Board.canvas", ops: [{ op: "remove_node", id: "a" }] }));
    expect(err.code).toBe("encoding_unsupported");
    expect(bytesOf("Board.canvas").equals(canvas)).toBe(true);
    ctx.close();
  });

  test("note_write may replace such a note whole (it names every byte of the new file)", async () => {
    sb = sandbox({ "Latin.md": LATIN1_NOTE });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    await invoke(noteWrite, ctx, { path: "Latin.md", body: "# Café\n" });
    expect(bytesOf("Latin.md").toString("utf8")).toBe("# Café\n");
    ctx.close();
  });
});
