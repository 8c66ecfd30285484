import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { refreshAnswer, refreshIndex } from "../../src/cli/refresh.ts";
import { checkFolders } from "../../src/index/build/folder-check.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The CLI's quick check (docs/decisions.md, "A CLI read that is current and fast"): folders whose
 * mtime moved are read again, the notes of an answer are statted. Real files, a real index.
 */

let sb: Sandbox;
let ctx: App;

const HOUR_AGO = (Date.now() - 3_600_000) / 1000;

/** Every folder of the vault gets an mtime an hour ago: the stamps a build stores are then exact, not "racy". */
function ageFolders(rel = ""): void {
  const abs = join(sb.vault, rel);
  for (const name of ["Projects", "Projects/Deep", "Archive"]) utimesSync(join(abs, name), HOUR_AGO, HOUR_AGO);
  utimesSync(abs, HOUR_AGO, HOUR_AGO);
}

async function search(q: string): Promise<string[]> {
  return (await invoke(vaultSearch, ctx, { q, mode: "lexical" })).results.map((r) => r.path);
}

/** What the CLI does around a read: the quick check, the read, the answer's check, the read again if it changed. */
async function cliSearch(q: string): Promise<string[]> {
  await refreshIndex(ctx);
  const first = await invoke(vaultSearch, ctx, { q, mode: "lexical" });
  if (await refreshAnswer(ctx, first)) return search(q);
  return first.results.map((r) => r.path);
}

beforeEach(async () => {
  sb = sandbox({
    "Root.md": "# Root\n\nwombat at the root\n",
    "Projects/Alpha.md": "# Alpha\n\nwombat plans\n",
    "Projects/Deep/Beta.md": "# Beta\n\nwombat deep down\n",
    "Archive/Old.md": "# Old\n\nan old wombat\n",
  });
  ageFolders();
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
});
afterEach(() => {
  ctx.close();
  sb.cleanup();
});

describe("CLI reads without a server", () => {
  test("a nothing-changed check reads no folder and writes nothing", () => {
    expect(checkFolders(ctx.vault, ctx.index)).toEqual({ paths: [], folders: null });
  });

  test("new notes (in a folder, at the root, in new nested folders) are found; deleted ones are never returned", async () => {
    sb.write("Projects/New wombat.md", "# New\n\nwombat arrives\n");
    sb.write("Fresh/Nested/Twice.md", "# Twice\n\nwombat nested\n");
    sb.write("Top.md", "# Top\n\nwombat on top\n");
    rmSync(join(sb.vault, "Projects/Deep/Beta.md"));
    const found = await cliSearch("wombat");
    expect(found.sort()).toEqual(["Archive/Old.md", "Fresh/Nested/Twice.md", "Projects/Alpha.md", "Projects/New wombat.md", "Root.md", "Top.md"]);
    // The new folders are stamped: the next check has nothing to do.
    expect(checkFolders(ctx.vault, ctx.index)?.paths).toEqual([]);
  });

  test("a folder deleted or renamed takes its notes with it; the renamed ones are found under their new path", async () => {
    rmSync(join(sb.vault, "Archive"), { recursive: true });
    renameSync(join(sb.vault, "Projects/Deep"), join(sb.vault, "Projects/Moved"));
    expect((await cliSearch("wombat")).sort()).toEqual(["Projects/Alpha.md", "Projects/Moved/Beta.md", "Root.md"]);
  });

  test("an editor's save that renames a temporary file over the note is seen", async () => {
    writeFileSync(join(sb.vault, "Projects/.Alpha.md.tmp"), "# Alpha\n\nnumbat plans now\n");
    renameSync(join(sb.vault, "Projects/.Alpha.md.tmp"), join(sb.vault, "Projects/Alpha.md"));
    expect(await cliSearch("numbat")).toEqual(["Projects/Alpha.md"]);
    expect(await cliSearch("wombat")).not.toContain("Projects/Alpha.md");
  });

  test("a note of the answer edited in place (its folder unmoved) is indexed again and the read asked again", async () => {
    const folder = statSync(join(sb.vault, "Projects")).mtimeMs;
    writeFileSync(join(sb.vault, "Projects/Alpha.md"), "# Alpha\n\nno marsupial left here, only a longer text\n");
    expect(statSync(join(sb.vault, "Projects")).mtimeMs).toBe(folder);
    // The folders alone cannot tell: the answer's check does.
    await refreshIndex(ctx);
    expect(await search("wombat")).toContain("Projects/Alpha.md");
    expect(await cliSearch("wombat")).not.toContain("Projects/Alpha.md");
    expect(await search("marsupial")).toEqual(["Projects/Alpha.md"]);
  });

  test("a folder changed in the same mtime tick as the pass that stamped it is read again (racy stamps)", async () => {
    // A folder made just now: the build stamps it as too recent to trust.
    sb.write("Recent/First.md", "# First\n\nquoll one\n");
    await ctx.updateIndex({ full: true });
    const recent = statSync(join(sb.vault, "Recent"));
    sb.write("Recent/Second.md", "# Second\n\nquoll two\n");
    // A clock too coarse to show the change: the folder's mtime is what it was when it was stamped.
    utimesSync(join(sb.vault, "Recent"), recent.atime, recent.mtime);
    expect((await cliSearch("quoll")).sort()).toEqual(["Recent/First.md", "Recent/Second.md"]);
  });

  test("an index without folder stamps (built by an earlier indx) gets a full pass, which stamps it", async () => {
    const raw = new Database(join(sb.dataDir, "index.db"));
    raw.run("DELETE FROM meta WHERE key = 'folder_stamps'");
    raw.close();
    // An edit in place of a note outside any answer: only a full pass sees it.
    writeFileSync(join(sb.vault, "Archive/Old.md"), "# Old\n\nan old numbat\n");
    expect(await cliSearch("numbat")).toEqual(["Archive/Old.md"]);
    expect(checkFolders(ctx.vault, ctx.index)).toEqual({ paths: [], folders: null });
  });

  test("excluded and hidden entries of a folder that moved stay out", async () => {
    mkdirSync(join(sb.vault, "Projects/node_modules"), { recursive: true });
    writeFileSync(join(sb.vault, "Projects/node_modules/Pkg.md"), "wombat package\n");
    writeFileSync(join(sb.vault, "Projects/.hidden.md"), "wombat hidden\n");
    expect((await cliSearch("wombat")).sort()).toEqual(["Archive/Old.md", "Projects/Alpha.md", "Projects/Deep/Beta.md", "Root.md"]);
  });
});
