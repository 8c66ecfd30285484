import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../../src/app/context.ts";
import { etagOf } from "../../../src/core/hash.ts";
import type { VaultEvent } from "../../../src/events/types.ts";
import { noteDelete, noteWrite } from "../../../src/notes/write-ops.ts";
import type { OpContext } from "../../../src/ops/context.ts";
import { PartlyWritten } from "../../../src/writes/pipeline.ts";
import { indexRows } from "../../support/index-rows.ts";
import { invoke, invokeOp, rejection } from "../../support/ops.ts";

import { type Sandbox, sandbox } from "../../support/vault.ts";

let sb: Sandbox;
let ctx: App;

async function setup(files: Record<string, string | Uint8Array> = {}) {
  sb = sandbox({ "Home.md": "# Home\n\nSee [[Other]].\n", "Other.md": "# Other\n", ...files });
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
  return ctx;
}

afterEach(() => {
  ctx?.close();
  sb?.cleanup();
});

const write = (input: Record<string, unknown>, scopes?: OpContext) => invoke(noteWrite, scopes ?? ctx, input) as Promise<any>;
const indexedEtag = (path: string) => indexRows<{ etag: string }>(ctx, "SELECT etag FROM files WHERE path = ?", path)[0]?.etag ?? null;

describe("note_write", () => {
  test("creates a note, reindexes it and returns the read-after-write view", async () => {
    await setup();
    const out = await write({ path: "New/Idea.md", body: "# Idea\n\nLinks to [[Home]] #draft\n" });
    expect(out.created).toBe(true);
    expect(out.etag).toBe(etagOf(readFileSync(join(sb.vault, "New/Idea.md"))));
    expect(out.outline).toEqual([{ level: 1, text: "Idea", line: 1 }]);
    expect(out.tags).toEqual(["draft"]);
    expect(indexedEtag("New/Idea.md")).toBe(out.etag);
  });

  test("frontmatter given as an object is written as YAML at the top", async () => {
    await setup();
    const out = await write({ path: "Fm.md", body: "Body\n", frontmatter: { status: "open", tags: ["a", "b"] } });
    expect(out.frontmatter).toEqual({ status: "open", tags: ["a", "b"] });
    expect(readFileSync(join(sb.vault, "Fm.md"), "utf8")).toStartWith("---\n");
  });

  test("if_not_exists refuses to clobber; if_match guards a replace", async () => {
    await setup();
    const taken = await rejection(write({ path: "Home.md", body: "x", if_not_exists: true }));
    expect(taken.code).toBe("already_exists");
    const etag = etagOf(readFileSync(join(sb.vault, "Home.md")));
    const stale = await rejection(write({ path: "Home.md", body: "x", if_match: "0000000000000000" }));
    expect(stale.code).toBe("etag_mismatch");
    expect(stale.details).toMatchObject({ expected: "0000000000000000", actual: etag });
    expect(readFileSync(join(sb.vault, "Home.md"), "utf8")).toBe("# Home\n\nSee [[Other]].\n");
    const ok = await write({ path: "Home.md", body: "# Home v2\n", if_match: `"${etag}"` });
    expect(ok.created).toBe(false);
    expect(ok.changed).toBe(true);
  });

  test("keeps the file mode and a byte-order mark", async () => {
    await setup({ "Bom.md": "\uFEFF# Bom\n" });
    chmodSync(join(sb.vault, "Bom.md"), 0o600);
    await write({ path: "Bom.md", body: "# Bom v2\n" });
    const bytes = readFileSync(join(sb.vault, "Bom.md"));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(statSync(join(sb.vault, "Bom.md")).mode & 0o777).toBe(0o600);
  });

  test("writing the same bytes is not a change", async () => {
    await setup();
    const events: VaultEvent[] = [];
    ctx.events.subscribe((e) => events.push(e));
    const out = await write({ path: "Other.md", body: "# Other\n" });
    expect(out.changed).toBe(false);
    expect(events).toEqual([]);
  });

  test("bad input is refused before anything is written", async () => {
    await setup();
    writeFileSync(join(sb.dir, "outside.md"), "x");
    symlinkSync(join(sb.dir, "outside.md"), join(sb.vault, "escape.md"));
    symlinkSync(join(sb.dir, "missing.md"), join(sb.vault, "dangling.md"));
    const cases: [Record<string, unknown>, string][] = [
      [{ path: "../evil.md", body: "x" }, "path_invalid"],
      [{ path: "/etc/evil.md", body: "x" }, "path_invalid"],
      [{ path: "a/%2e%2e/%2e%2e/evil.md", body: "x" }, "path_invalid"],
      [{ path: "escape.md", body: "x" }, "path_invalid"],
      [{ path: "dangling.md", body: "x" }, "path_invalid"],
      [{ path: "nul\u0000.md", body: "x" }, "path_invalid"],
      [{ path: "note.txt", body: "x" }, "path_invalid"],
      [{ path: ".obsidian/evil.md", body: "x" }, "path_invalid"],
      [{ path: "Nul.md", body: "a\u0000b" }, "validation_failed"],
      [{ path: "Big.md", body: "x".repeat(5 * 1024 * 1024 + 1) }, "payload_too_large"],
      [{ path: "Home.md", body: "x", if_match: "abc", if_not_exists: true }, "validation_failed"],
      [{ path: "Home.md", body: 42 }, "validation_failed"],
    ];
    for (const [input, code] of cases) expect({ input: input.path, code: (await rejection(write(input))).code as string }).toEqual({ input: input.path, code });
    expect(readFileSync(join(sb.dir, "outside.md"), "utf8")).toBe("x");
    expect(existsSync(join(sb.dir, "evil.md"))).toBe(false);
    expect(existsSync(join(sb.dir, "missing.md"))).toBe(false);
    expect(readdirSync(sb.vault).sort()).toEqual(["Home.md", "Other.md", "dangling.md", "escape.md"]);
  });

  test("a binary file named .md is never overwritten by accident", async () => {
    await setup({ "bin.md": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]) });
    expect((await rejection(write({ path: "bin.md", body: "x" }))).code).toBe("path_invalid");
  });

  test("a read-only token cannot write", async () => {
    await setup();
    const reader = ctx.forCall({ scopes: new Set(["vault:read"]) });
    expect((await rejection(write({ path: "X.md", body: "x" }, reader))).code).toBe("forbidden");
    expect(existsSync(join(sb.vault, "X.md"))).toBe(false);
  });
});

describe("note_delete", () => {
  test("moves the note to .trash/ (a name clash gets a number) and prunes the index", async () => {
    await setup({ ".trash/Other.md": "older\n" });
    const out = (await invoke(noteDelete, ctx, { path: "Other.md" })) as any;
    expect(out).toMatchObject({ deleted: true, trashed: true });
    expect(existsSync(join(sb.vault, "Other.md"))).toBe(false);
    expect(readFileSync(join(sb.vault, ".trash/Other 1.md"), "utf8")).toBe("# Other\n");
    expect(indexedEtag("Other.md")).toBeNull();
    const dangling = indexRows<{ n: number }>(ctx, "SELECT count(*) AS n FROM links WHERE dst_path IS NULL AND linkpath = 'Other'")[0]!;
    expect(dangling.n).toBe(1);
  });

  test("trashOption none deletes for good; if_match guards it", async () => {
    await setup({ ".obsidian/app.json": JSON.stringify({ trashOption: "none" }) });
    expect((await rejection(invoke(noteDelete, ctx, { path: "Other.md", if_match: "ffffffffffffffff" }))).code).toBe("etag_mismatch");
    const out = (await invoke(noteDelete, ctx, { path: "Other.md" })) as any;
    expect(out.trashed).toBe(false);
    expect(existsSync(join(sb.vault, ".trash"))).toBe(false);
    expect((await rejection(invoke(noteDelete, ctx, { path: "Other.md" }))).code).toBe("not_found");
  });
});

describe("concurrency", () => {
  test("20 writers holding the same etag: exactly one wins, the rest get etag_mismatch", async () => {
    await setup();
    const etag = etagOf(readFileSync(join(sb.vault, "Other.md")));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => write({ path: "Other.md", body: `# Other\n\nwriter ${i}\n`, if_match: etag })),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.code);
    expect(won.length).toBe(1);
    expect(lost).toEqual(Array(19).fill("etag_mismatch"));
    const text = readFileSync(join(sb.vault, "Other.md"), "utf8");
    expect(text).toMatch(/^# Other\n\nwriter \d+\n$/);
    expect(indexedEtag("Other.md")).toBe(etagOf(Buffer.from(text)));
  });
});

describe("idempotency", () => {
  test("the same key replays without a second write; another body is 409", async () => {
    await setup();
    const events: VaultEvent[] = [];
    ctx.events.subscribe((e) => events.push(e));
    const first = await invokeOp(noteWrite, ctx, { path: "Idem.md", body: "one\n", idempotency_key: "k-1" });
    // Someone edits the note meanwhile: a replay must not overwrite it.
    writeFileSync(join(sb.vault, "Idem.md"), "edited elsewhere\n");
    const again = await invokeOp(noteWrite, ctx, { path: "Idem.md", body: "one\n", idempotency_key: "k-1" });
    expect(again.replayed).toBe(true);
    expect(again.result).toEqual(first.result);
    expect(readFileSync(join(sb.vault, "Idem.md"), "utf8")).toBe("edited elsewhere\n");
    expect(events.filter((e) => e.kind === "note.created").length).toBe(1);
    const reused = await rejection(invokeOp(noteWrite, ctx, { path: "Idem.md", body: "two\n", idempotency_key: "k-1" }));
    expect(reused.code).toBe("idempotency_key_reused");
  });

  test("records survive a rebuild of the index (they live in state.db)", async () => {
    await setup();
    await invokeOp(noteWrite, ctx, { path: "Idem.md", body: "one\n", idempotency_key: "k-2" });
    await ctx.updateIndex({ build: true, rebuild: true });
    const again = await invokeOp(noteWrite, ctx, { path: "Idem.md", body: "one\n", idempotency_key: "k-2" });
    expect(again.replayed).toBe(true);
  });
});

describe("events", () => {
  test("writes and outside changes are events in events.log, without content", async () => {
    await setup();
    await write({ path: "Secretive.md", body: "# top secret words\n" });
    writeFileSync(join(sb.vault, "Other.md"), "# Other, edited in an editor\n");
    await ctx.updateIndex({ full: true });
    const lines = readFileSync(join(sb.dataDir, "events.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const kinds = lines.map((e) => `${e.kind}:${e.source}:${e.path ?? ""}`);
    expect(kinds).toContain("note.created:indx:Secretive.md");
    expect(kinds).toContain("note.updated:external:Other.md");
    expect(kinds).toContain("index.updated:indx:");
    expect(readFileSync(join(sb.dataDir, "events.log"), "utf8")).not.toContain("secret words");
  });
});

describe("a multi-file write failing part-way", () => {
  test("announces and indexes the files it replaced, and tells the caller which, with their etags", async () => {
    await setup();
    const events: VaultEvent[] = [];
    ctx.events.subscribe((e) => events.push(e));
    // The second file cannot be created: its folder would be Other.md, a file.
    const err = await rejection(
      ctx.writer.transact("test", ["Home.md", "Other.md/Child.md", "Third.md"], () => ({
        changes: [
          { type: "write", path: "Home.md", text: "# Home v2\n", expect: { present: true } },
          { type: "write", path: "Other.md/Child.md", text: "# Child\n", expect: { absent: true } },
          { type: "write", path: "Third.md", text: "# Third\n", expect: { absent: true } },
        ],
        value: null,
      })),
    );
    // The file after the failure is untouched, and no temp file of its staged bytes is left.
    expect(readdirSync(sb.vault).sort()).toEqual(["Home.md", "Other.md"]);
    const home = etagOf(readFileSync(join(sb.vault, "Home.md")));
    expect(readFileSync(join(sb.vault, "Home.md"), "utf8")).toBe("# Home v2\n");
    expect(events.filter((e) => e.kind.startsWith("note.")).map((e) => [e.kind, e.path, e.etag])).toEqual([["note.updated", "Home.md", home]]);
    expect(indexedEtag("Home.md")).toBe(home);
    expect(err.details).toMatchObject({ files_written: 1, files_planned: 3 });
    expect(err).toBeInstanceOf(PartlyWritten);
    expect((err as PartlyWritten).written).toEqual({ "Home.md": home });
    expect(existsSync(join(sb.dataDir, "write-journal.json"))).toBe(false);
  });
});
