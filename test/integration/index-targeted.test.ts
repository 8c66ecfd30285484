import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { linkResolverBuilds, runIndex, updateIndex } from "../../src/index/build/indexer.ts";
import { indexIdentity } from "../../src/index/storage/connection.ts";
import { LINK_DST_SQL } from "../../src/index/storage/schema.ts";
import { IndexStore } from "../../src/index/storage/store.ts";
import { Vault } from "../../src/vault/vault.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

let sb: Sandbox | null = null;
const open: IndexStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  sb?.cleanup();
  sb = null;
});

/** The vault of the sandbox with its index in `dataDir` (a second one builds a fresh index of the same files). */
function vaultAt(s: Sandbox, dataDir: string): Vault {
  return Vault.open(loadConfig({ flags: {}, env: { ...s.env, INDX_DATA_DIR: join(s.dir, dataDir) } }));
}

function storeOf(vault: Vault): IndexStore {
  const { store } = IndexStore.openForIndexing(vault.indexPath, indexIdentity(vault));
  open.push(store);
  return store;
}

/** Every link as stored: its source, place, target as written and what it resolved to. */
function linksTable(indexPath: string): string[] {
  const db = new Database(indexPath, { readonly: true });
  try {
    return db
      .query<{ row: string }, []>(
        `SELECT f.path || ' #' || l.ord || ' ' || l.linkpath || ' -> ' || coalesce(${LINK_DST_SQL}, '(unresolved)') AS row FROM links l JOIN files f ON f.id = l.src_id ORDER BY f.path, l.ord`,
      )
      .all()
      .map((r) => r.row);
  } finally {
    db.close();
  }
}

/** The links a full build of the vault as it is now stores, in a new index of its own. */
function freshLinks(s: Sandbox, name: string): string[] {
  const fresh = vaultAt(s, name);
  runIndex(fresh);
  return linksTable(fresh.indexPath);
}

describe("a targeted index pass (docs/decisions.md, A targeted index pass patches a kept link resolver)", () => {
  test("an edit builds no resolver; creates, deletes and renames re-resolve links exactly as a full build does", () => {
    sb = sandbox({
      "a/Source.md": "[[Target]] [[Other]] [[Shared]] [[b/Shared]] [[Gone]] ![[pic.png]]\n",
      "a/Shared.md": "near\n",
      "b/Shared.md": "far\n",
      "Gone.md": "[[Source]]\n",
      "b/Reader.md": "[[Shared]] [[Target]] [[Renamed]]\n",
    });
    const s = sb;
    const vault = vaultAt(s, "data");
    runIndex(vault);
    const store = storeOf(vault);
    // Resolvers the targeted passes build (the fresh full builds compared with build their own).
    let builds = 0;
    const pass = (...only: string[]) => {
      const before = linkResolverBuilds();
      const report = updateIndex(vault, store, { only });
      builds += linkResolverBuilds() - before;
      return report;
    };
    let fresh = 0;
    const expectAsFullBuild = () => expect(linksTable(vault.indexPath)).toEqual(freshLinks(s, `fresh-${fresh++}`));

    // The first targeted pass on this store builds the resolver; none after it does.
    s.write("a/Source.md", "[[Target]] [[Other]] [[Shared]] [[b/Shared]] [[Gone]] ![[pic.png]] edited\n");
    pass("a/Source.md");
    expect(builds).toBe(1);

    s.write("b/Reader.md", "[[Shared]] [[Target]] [[Renamed]] [[Other]]\n");
    expect(pass("b/Reader.md").updated).toBe(1);
    expectAsFullBuild();

    // Unresolved → resolved: the new note and the new attachment are found by links written before them.
    s.write("b/Target.md", "# Target\n");
    s.write("a/pic.png", "png");
    const created = pass("b/Target.md", "a/pic.png");
    expect(created.added).toBe(2);
    expect(created.linksReresolved).toBeGreaterThan(0);
    expectAsFullBuild();

    // A nearer file of the same name takes the link over; its deletion hands it back.
    s.write("a/Target.md", "# nearer\n");
    pass("a/Target.md");
    expectAsFullBuild();
    rmSync(join(s.vault, "a/Target.md"));
    expect(pass("a/Target.md").deleted).toBe(1);
    expectAsFullBuild();

    // Resolved → unresolved, and an ambiguous name losing one of its files.
    rmSync(join(s.vault, "Gone.md"));
    rmSync(join(s.vault, "a/Shared.md"));
    expect(pass("Gone.md", "a/Shared.md").deleted).toBe(2);
    expectAsFullBuild();

    // A rename is the old path gone and the new one there, in one pass.
    renameSync(join(s.vault, "b/Target.md"), join(s.vault, "Renamed.md"));
    const renamed = pass("b/Target.md", "Renamed.md");
    expect([renamed.added, renamed.deleted]).toEqual([1, 1]);
    expectAsFullBuild();

    expect(builds).toBe(1);
  });

  test("a write the pass did not make (another connection's) makes the next pass build the resolver again", () => {
    sb = sandbox({ "Source.md": "[[Target]] [[Later]]\n", "Target.md": "# T\n" });
    const s = sb;
    const vault = vaultAt(s, "data");
    runIndex(vault);
    const store = storeOf(vault);
    s.write("Source.md", "[[Target]] [[Later]] [[Third]]\n");
    updateIndex(vault, store, { only: ["Source.md"] });

    // Another connection (another process's pass) adds a note the kept resolver has not heard of.
    s.write("Later.md", "# later\n");
    updateIndex(vault, storeOf(vault), { only: ["Later.md"] });

    const builds = linkResolverBuilds();
    s.write("Third.md", "[[Later]]\n");
    updateIndex(vault, store, { only: ["Third.md"] });
    expect(linkResolverBuilds()).toBe(builds + 1);
    expect(linksTable(vault.indexPath)).toEqual(freshLinks(s, "fresh"));
    expect(linksTable(vault.indexPath)).toContain("Third.md #0 Later -> Later.md");
  });

  test("the watcher's echo of a file already indexed writes nothing to the index", () => {
    sb = sandbox({ "A.md": "# A\n[[B]]\n", "B.md": "# B\n" });
    const s = sb;
    const vault = vaultAt(s, "data");
    runIndex(vault);
    const store = storeOf(vault);
    s.write("A.md", "# A\n[[B]] edited\n");
    expect(updateIndex(vault, store, { only: ["A.md"] }).updated).toBe(1);
    const generation = store.generation();
    const updatedAt = store.getMeta("updated_at");

    const echo = updateIndex(vault, store, { only: ["A.md"] });
    expect([echo.added, echo.updated, echo.deleted, echo.unchanged]).toEqual([0, 0, 0, 1]);
    expect(store.generation()).toBe(generation);
    expect(store.getMeta("updated_at")).toBe(updatedAt);
  });
});
