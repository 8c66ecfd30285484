// Renames a tag back and forth across many notes until killed: the crash test of multi-file writes.

import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { tagRename } from "../../src/tags/rename-ops.ts";
import { Vault } from "../../src/vault/vault.ts";
import { invoke } from "./ops.ts";

const ctx = new App(Vault.open(loadConfig({ env: process.env })));
process.stdout.write("ready\n");
for (let i = 0; ; i++) {
  const [from, to] = i % 2 === 0 ? ["alpha", "beta"] : ["beta", "alpha"];
  await invoke(tagRename, ctx, { from, to });
}
