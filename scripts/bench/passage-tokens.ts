#!/usr/bin/env bun
/**
 * Prompt tokens per passage (docs/decisions.md, "A compact passage format"): every chunk of a
 * vault rendered as the model reads it, in the wrapper of before (`<passage id path heading
 * lines>` … `</passage>`, as the runtime wrote it until this change) and in the compact one
 * (`[P3] path § heading`), counted with OpenAI's o200k tokenizer. Also the passages of a typical
 * ai_ask prompt (the first 8 of each note's chunks, in order) as one block.
 * Vaults: fixtures/demo-vault and fixtures/kepano (or BENCH_VAULT).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { type Passage, passagesForPaths, renderPassages } from "../../src/ai/passages.ts";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, isolatedEnv, median, ROOT, round } from "./common.ts";

const attr = (s: string) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll("\n", " ");

/** The wrapper of before, verbatim. */
function renderBefore(passages: readonly Passage[]): string {
  return passages
    .map(
      (p) =>
        `<passage id="${p.id}" path="${attr(p.path)}"${p.heading ? ` heading="${attr(p.heading)}"` : ""} lines="${p.startLine}-${p.endLine}">\n${p.text.replaceAll("</passage>", "</ passage>")}\n</passage>`,
    )
    .join("\n");
}

const tokens = (s: string) => encode(s).length;

const vaults = process.env.BENCH_VAULT ? [process.env.BENCH_VAULT] : [join(ROOT, "fixtures", "demo-vault"), join(ROOT, "fixtures", "kepano")];
for (const vault of vaults) {
  const env = isolatedEnv("passage-tokens", vault);
  rmSync(env.INDX_DATA_DIR!, { recursive: true, force: true });
  const ctx = new App(Vault.open(loadConfig({ env })));
  await ctx.updateIndex({ build: true });
  const paths = ctx.index.files.paths().filter((p) => p.endsWith(".md"));
  const passages = passagesForPaths(ctx, paths);
  const before = passages.map((p) => tokens(renderBefore([p])));
  const after = passages.map((p) => tokens(renderPassages([p])));
  const text = passages.map((p) => tokens(p.text));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  // A typical ask prompt: 8 passages together.
  const prompts: [number, number][] = [];
  for (let i = 0; i + 8 <= passages.length; i += 8) {
    const eight = passages.slice(i, i + 8).map((p, j) => ({ ...p, id: `P${j + 1}` }));
    prompts.push([tokens(renderBefore(eight)), tokens(renderPassages(eight))]);
  }
  emit({
    bench: "ai.passage_tokens",
    vault: vault.replace(`${ROOT}/`, ""),
    notes: paths.length,
    passages: passages.length,
    text_median: median(text),
    before_median: median(before),
    after_median: median(after),
    before_mean: round(sum(before) / passages.length, 1),
    after_mean: round(sum(after) / passages.length, 1),
    wrapper_before_mean: round((sum(before) - sum(text)) / passages.length, 1),
    wrapper_after_mean: round((sum(after) - sum(text)) / passages.length, 1),
    saved_share: round(1 - sum(after) / sum(before), 3),
    ask_prompt_saved_share: prompts.length ? round(1 - sum(prompts.map((p) => p[1])) / sum(prompts.map((p) => p[0])), 3) : null,
  });
  ctx.close();
}
