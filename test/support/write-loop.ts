// A writer that never stops on its own: the crash test kills it with SIGKILL mid-write.
// Vault and data dir come from INDX_VAULT / INDX_DATA_DIR, as for the CLI.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { noteWrite } from "../../src/notes/write-ops.ts";
import { Vault } from "../../src/vault/vault.ts";
import { invoke } from "./ops.ts";

const ctx = new App(Vault.open(loadConfig({ env: process.env })));
const dir = process.env.VERSIONS_DIR!;
const versions = [readFileSync(join(dir, "version-a.txt"), "utf8"), readFileSync(join(dir, "version-b.txt"), "utf8")];
process.stdout.write("ready\n");
for (let i = 0; ; i++) await invoke(noteWrite, ctx, { path: "Target.md", body: versions[i % 2]! });
