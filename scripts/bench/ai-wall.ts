#!/usr/bin/env bun
/**
 * The deny wall's cost (docs/decisions.md, "The deny wall"), on the generated 5,000-note vault
 * with a deny glob over one top-level folder: building the wall after an index change (the
 * fingerprint of the denied notes' text), and reading a prompt of allowed passages (the check
 * every chat request passes). Medians of several runs; one JSON line each.
 */
import { rmSync } from "node:fs";
import { passagesForPaths, renderPassages } from "../../src/ai/passages.ts";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { AiGlobs } from "../../src/providers/globs.ts";
import { DenyWall } from "../../src/providers/wall.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, median, requireShared, round } from "./common.ts";

if (requireShared("ai-wall")) {
  const vault = generatedVault(5_000, 7);
  const env = isolatedEnv("ai-wall", vault);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const ctx = new App(Vault.open(loadConfig({ env })));
  await ctx.updateIndex({ build: true });
  const notes = ctx.index.files.notes();
  // The folder with the most notes is denied: the heavy case of a deny glob.
  const folders = new Map<string, number>();
  for (const n of notes) {
    const top = n.path.includes("/") ? n.path.slice(0, n.path.indexOf("/")) : "";
    if (top) folders.set(top, (folders.get(top) ?? 0) + 1);
  }
  const [folder, deniedNotes] = [...folders].sort((a, b) => b[1] - a[1])[0]!;
  const globs = new AiGlobs([], [`${folder}/**`]);

  // The build: its synchronous part (which notes and chunks are denied), then the fingerprint in
  // slices, with the longest stretch the event loop waited for (a timer due every millisecond).
  const builds: number[] = [];
  const syncs: number[] = [];
  const stalls: number[] = [];
  let wall = DenyWall.of(ctx.index, globs);
  for (let i = 0; i < 5; i++) {
    let last = performance.now();
    let stall = 0;
    const t = performance.now();
    wall = DenyWall.of(ctx.index, globs);
    syncs.push(performance.now() - t);
    const timer = setInterval(() => {
      const now = performance.now();
      stall = Math.max(stall, now - last);
      last = now;
    }, 1);
    last = performance.now();
    await wall.ready();
    clearInterval(timer);
    builds.push(performance.now() - t);
    stalls.push(Math.max(stall, performance.now() - last));
  }

  // A prompt as ai_summarize sends it: allowed notes' passages, about 10k tokens.
  const allowed = notes.filter((n) => globs.allows(n.path)).map((n) => n.path);
  const passages = passagesForPaths(ctx, allowed.slice(0, 200));
  let tokens = 0;
  const picked = passages.filter((p) => (tokens += p.tokens) <= 10_000);
  const prompt = renderPassages(picked);
  const checks: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    if (wall.reason(prompt) !== null) throw new Error("the wall refused allowed text");
    checks.push(performance.now() - t);
  }
  emit({
    bench: "ai.deny_wall",
    notes: notes.length,
    denied_notes: deniedNotes,
    denied_chunks: wall.deniedHashes.size,
    build_ms_median: round(median(builds), 1),
    build_sync_ms_median: round(median(syncs), 1),
    build_longest_stall_ms_median: round(median(stalls), 1),
    prompt_tokens: picked.reduce((n, p) => n + p.tokens, 0),
    prompt_chars: prompt.length,
    check_ms_median: round(median(checks), 2),
  });
  ctx.close();
}
