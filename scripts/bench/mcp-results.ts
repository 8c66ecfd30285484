#!/usr/bin/env bun
/**
 * What an agent pays to read a result: the o200k tokens of the tools/call result (`content` text
 * plus `structuredContent`, as an MCP client receives it) of vault_search, note_read and
 * activate_context on a copy of the demo vault (fixtures/demo-vault), in process. Prints one JSON
 * line; docs/mcp.md quotes the figures.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { App } from "../../src/app/context.ts";
import { OPERATION_BY_NAME } from "../../src/app/registry.ts";
import { loadConfig } from "../../src/config/load.ts";
import { resultText } from "../../src/mcp/content.ts";
import { invokeOp } from "../../src/ops/invoke.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, ROOT } from "./common.ts";

const CALLS: [string, Record<string, unknown>][] = [
  ["vault_search", { q: "rollback" }],
  ["note_read", { path: "Projects/Apollo Launch.md" }],
  ["activate_context", { query: "apollo launch", max_tokens: 2000 }],
  ["activate_context", { query: "apollo launch" }],
];

const dir = mkdtempSync(join(tmpdir(), "indx-bench-results-"));
const vault = join(dir, "vault");
cpSync(join(ROOT, "fixtures", "demo-vault"), vault, { recursive: true });
const env = {
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, "config"),
  XDG_DATA_HOME: join(dir, "share"),
  INDX_VAULT: vault,
  INDX_DATA_DIR: join(dir, "data"),
  INDX_LOG: "off",
};
const app = new App(Vault.open(loadConfig({ flags: {}, env })));
try {
  await app.updateIndex({ build: true });
  const ctx = app.forCall({ scopes: new Set(["vault:read"]) });
  const record: Record<string, unknown> = { bench: "mcp-results", vault: "fixtures/demo-vault", tokenizer: "o200k" };
  for (const [name, args] of CALLS) {
    const op = OPERATION_BY_NAME.get(name);
    if (!op) throw new Error(`no operation ${name}`);
    const { input, result } = await invokeOp(op, ctx, args);
    const text = resultText(op, result, input);
    const label = `${name}(${JSON.stringify(args)})`;
    record[label] = {
      text_tokens: encode(text).length,
      structured_tokens: encode(JSON.stringify(result)).length,
      result_tokens: encode(JSON.stringify({ content: [{ type: "text", text }], structuredContent: result })).length,
    };
  }
  emit(record);
} finally {
  app.close();
  rmSync(dir, { recursive: true, force: true });
}
