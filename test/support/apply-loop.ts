// Applies frontmatter edits to every note, batch after batch, until killed: the crash test of the AI apply.
import { readdirSync } from "node:fs";
import { applyPlans } from "../../src/ai/ops/apply/apply.ts";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { Vault } from "../../src/vault/vault.ts";

const ctx = new App(Vault.open(loadConfig({ env: process.env })));
const paths = readdirSync(ctx.vault.root).filter((name) => name.endsWith(".md"));
process.stdout.write("ready\n");
for (let i = 0; ; i++) {
  const round = i % 2 === 0 ? "even" : "odd";
  const planners = paths.map((path) => ({ path, etag: "", reason: "crash test", plan: () => ({ set: { round }, detail: null }) }));
  await applyPlans(ctx, "ai_test", planners, { written: [] });
}
