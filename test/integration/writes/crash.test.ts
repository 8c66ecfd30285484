import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { etagOf } from "../../../src/core/hash.ts";
import { indexRows } from "../../support/index-rows.ts";
import { sandbox } from "../../support/vault.ts";

const sb = sandbox();
afterAll(() => sb.cleanup());

// Big enough that a kill often lands inside a write, small enough to loop quickly.
const VERSION_A = `# Target\n\n${"alpha line with some words\n".repeat(40_000)}`;
const VERSION_B = `# Target\n\n${"bravo line, other words here\n".repeat(30_000)}`;
const ORIGINAL = "# Target\n\noriginal\n";

test("a writer killed with SIGKILL leaves the old or the new note, and the index agrees after restart", async () => {
  sb.write("Target.md", ORIGINAL);
  const setupCtx = sb.context();
  await setupCtx.updateIndex({ build: true });
  setupCtx.close();
  // Too big for environment variables (E2BIG): the writer reads them from files.
  sb.write("../version-a.txt", VERSION_A);
  sb.write("../version-b.txt", VERSION_B);
  const allowed = new Set([ORIGINAL, VERSION_A, VERSION_B].map((t) => etagOf(Buffer.from(t))));

  for (let round = 0; round < 12; round++) {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "../../support/write-loop.ts")], {
      env: { ...sb.env, VERSIONS_DIR: sb.dir },
      stdout: "pipe",
      stderr: "ignore",
    });
    const reader = child.stdout.getReader();
    await reader.read(); // "ready"
    await Bun.sleep(20 + Math.floor(Math.random() * 120));
    child.kill("SIGKILL");
    await child.exited;

    const onDisk = readFileSync(join(sb.vault, "Target.md"));
    expect(allowed.has(etagOf(onDisk))).toBe(true);

    // Restart: the next process brings the index in line with the disk.
    const ctx = sb.context();
    await ctx.updateIndex({ full: true });
    const [row] = indexRows<{ etag: string }>(ctx, "SELECT etag FROM files WHERE path = ?", "Target.md");
    expect(row?.etag).toBe(etagOf(onDisk));
    ctx.close();
  }
  const db = new Database(join(sb.dataDir, "index.db"), { readonly: true });
  expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
  db.close();
}, 60_000);

test("a later writer sweeps temp files a crashed writer left behind", async () => {
  const { utimesSync, readdirSync, writeFileSync } = await import("node:fs");
  const stale = join(sb.vault, ".indx-tmp-Target.md-deadbeef0000");
  const fresh = join(sb.vault, ".indx-tmp-Other.md-0123456789ab");
  writeFileSync(stale, "torn");
  writeFileSync(fresh, "in flight");
  const old = new Date(Date.now() - 5 * 60_000);
  utimesSync(stale, old, old);
  const ctx = sb.context();
  const { noteWrite } = await import("../../../src/notes/write-ops.ts");
  const { invoke } = await import("../../support/ops.ts");
  await invoke(noteWrite, ctx, { path: "Swept.md", body: "# Swept\n" });
  ctx.close();
  const names = readdirSync(sb.vault);
  expect(names).not.toContain(".indx-tmp-Target.md-deadbeef0000");
  expect(names).toContain(".indx-tmp-Other.md-0123456789ab");
});

test("a multi-file write killed part-way is finished by the next writer: all notes renamed, or none", async () => {
  const multi = sandbox();
  try {
    const NOTES = 60;
    for (let i = 0; i < NOTES; i++) multi.write(`n${i}.md`, `# Note ${i}\n\n${"filler text\n".repeat(2000)}#alpha here\n`);
    const setup = multi.context();
    await setup.updateIndex({ build: true });
    setup.close();

    const tagsOnDisk = () => {
      const seen = new Set<string>();
      for (let i = 0; i < NOTES; i++) seen.add(/#(alpha|beta) here/.exec(readFileSync(join(multi.vault, `n${i}.md`), "utf8"))![1]!);
      return seen;
    };
    let interrupted = 0;
    for (let round = 0; round < 8; round++) {
      const child = Bun.spawn([process.execPath, join(import.meta.dir, "../../support/rename-loop.ts")], { env: multi.env, stdout: "pipe", stderr: "ignore" });
      await child.stdout.getReader().read(); // "ready"
      const { existsSync } = await import("node:fs");
      const journal = join(multi.dataDir, "write-journal.json");
      if (round % 2 === 0) {
        // Aim inside the apply phase: the journal exists exactly while files are being replaced.
        const deadline = Date.now() + 10_000;
        while (!existsSync(journal) && Date.now() < deadline) await Bun.sleep(1);
        await Bun.sleep(Math.floor(Math.random() * 30));
      } else {
        // Anywhere: planning, applying, between renames.
        await Bun.sleep(150 + Math.floor(Math.random() * 900));
      }
      child.kill("SIGKILL");
      await child.exited;
      if (existsSync(journal)) interrupted++;

      // The next process finishes the interrupted rename before doing anything else.
      const ctx = multi.context();
      await ctx.writer.recover();
      expect(tagsOnDisk().size).toBe(1);
      await ctx.updateIndex({ full: true });
      const tags = indexRows<{ tag: string }>(ctx, "SELECT DISTINCT tag FROM tags").map((r) => r.tag);
      expect(tags).toEqual([...tagsOnDisk()]);
      ctx.close();
    }
    // The kills must actually land inside renames for this test to mean anything.
    expect(interrupted).toBeGreaterThan(0);
  } finally {
    multi.cleanup();
  }
}, 90_000);

test("a journaled write of bytes (an attachment) is rolled forward byte for byte", async () => {
  const jb = sandbox({ "keep.md": "# Keep\n" });
  try {
    const { WriteJournal } = await import("../../../src/writes/journal.ts");
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255, 13, 10]);
    const text = "# New\n";
    new WriteJournal(jb.dataDir).begin("test", [
      { type: "write", path: "media/pic.png", base64: Buffer.from(bytes).toString("base64"), before: null, after: etagOf(bytes) },
      { type: "write", path: "new.md", text, before: null, after: etagOf(new TextEncoder().encode(text)) },
    ]);
    const ctx = jb.context();
    await ctx.writer.recover();
    ctx.close();
    expect(new Uint8Array(readFileSync(join(jb.vault, "media/pic.png")))).toEqual(bytes);
    expect(readFileSync(join(jb.vault, "new.md"), "utf8")).toBe(text);
  } finally {
    jb.cleanup();
  }
});

test("recovery reindexes and announces the steps done before the crash too: the writer does both only after its last step", async () => {
  const jd = sandbox({ "done.md": "# Done v1\n", "todo.md": "# Todo v1\n" });
  try {
    const setup = jd.context();
    await setup.updateIndex({ build: true });
    setup.close();
    const v1 = (text: string) => etagOf(new TextEncoder().encode(text));
    const { WriteJournal } = await import("../../../src/writes/journal.ts");
    new WriteJournal(jd.dataDir).begin("test", [
      { type: "write", path: "done.md", text: "# Done v2\n", before: v1("# Done v1\n"), after: v1("# Done v2\n") },
      { type: "write", path: "todo.md", text: "# Todo v2\n", before: v1("# Todo v1\n"), after: v1("# Todo v2\n") },
    ]);
    // The crash came after the first file was replaced, before the second.
    jd.write("done.md", "# Done v2\n");

    const ctx = jd.context();
    const events: { kind: string; path?: string }[] = [];
    ctx.events.subscribe((e) => events.push(e));
    await ctx.writer.recover();
    const indexed = indexRows<{ path: string; etag: string }>(ctx, "SELECT path, etag FROM files ORDER BY path");
    ctx.close();
    expect(indexed).toEqual([
      { path: "done.md", etag: v1("# Done v2\n") },
      { path: "todo.md", etag: v1("# Todo v2\n") },
    ]);
    expect(events.filter((e) => e.kind === "note.updated").map((e) => e.path)).toEqual(["done.md", "todo.md"]);
  } finally {
    jd.cleanup();
  }
});
