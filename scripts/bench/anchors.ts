#!/usr/bin/env bun
/**
 * Broken anchors on real vaults: links whose note resolves but whose #heading or #^block does not
 * exist (link_broken_anchors), counted per vault and per top-level folder (the languages of
 * obsidian-help), with the time to list them. Reads ../shared/corpora/obsidian-help (the public
 * obsidian-help vault, expected about 2,300) and ../shared/corpora/kepano when present, or the
 * folders BENCH_VAULTS names (comma-separated). Nothing is copied: the index goes to .bench-out.
 */
import { existsSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { linkBrokenAnchors, linkUnresolved } from "../../src/links/ops.ts";
import { invoke } from "../../src/ops/invoke.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, isolatedEnv, round, SHARED } from "./common.ts";

const vaults = process.env.BENCH_VAULTS ? process.env.BENCH_VAULTS.split(",") : ["obsidian-help", "kepano"].map((name) => join(SHARED, "corpora", name));

for (const dir of vaults) {
  if (!existsSync(dir)) {
    emit({ bench: "anchors", vault: basename(dir), skipped: `${dir} is missing` });
    continue;
  }
  const env = isolatedEnv(`anchors-${basename(dir)}`, dir);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const ctx = new App(Vault.open(loadConfig({ env })));
  try {
    await ctx.updateIndex({ build: true });
    const started = performance.now();
    const broken = await invoke(linkBrokenAnchors, ctx, { limit: 1000 });
    const ms = performance.now() - started;
    const all = [...broken.anchors];
    for (let cursor = broken.next_cursor; cursor; ) {
      const page = await invoke(linkBrokenAnchors, ctx, { limit: 1000, cursor });
      all.push(...page.anchors);
      cursor = page.next_cursor;
    }
    const byFolder: Record<string, number> = {};
    for (const a of all) {
      const folder = a.source.includes("/") ? a.source.slice(0, a.source.indexOf("/")) : ".";
      byFolder[folder] = (byFolder[folder] ?? 0) + 1;
    }
    const unresolved = await invoke(linkUnresolved, ctx, { limit: 1 });
    emit({
      bench: "anchors",
      vault: basename(dir),
      broken_anchors: broken.total,
      headings: all.filter((a) => a.kind === "heading").length,
      blocks: all.filter((a) => a.kind === "block").length,
      unresolved_targets: unresolved.total,
      first_page_ms: round(ms, 1),
      by_folder: byFolder,
    });
  } finally {
    ctx.close();
  }
}
