#!/usr/bin/env bun
/**
 * What the MCP tool catalogue costs an agent on every turn, in o200k tokens (gpt-tokenizer) of the
 * JSON of each tool's name, description and inputSchema: the whole catalogue without AI tools
 * (default), the `core` profile, the whole catalogue with a chat model configured (with AI), the
 * same with outputSchema, a read-only session, and the instructions sent once at initialize.
 * Runs in process on an empty sandbox vault (no binary). Prints one JSON line and, on a terminal,
 * one line per figure. docs/decisions.md ("An MCP catalogue an agent can afford") holds the budgets
 * the catalogue test enforces.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { toolText, visibleTools } from "../../src/mcp/catalogue.ts";
import { instructionsFor } from "../../src/mcp/identity.ts";
import type { Scope } from "../../src/ops/define.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit } from "./common.ts";

const ADMIN = new Set<Scope>(["vault:read", "vault:write", "vault:admin"]);
const dir = mkdtempSync(join(tmpdir(), "indx-bench-catalogue-"));
const vaultOf = (extra: Record<string, string>) =>
  new App(
    Vault.open(
      loadConfig({
        flags: {},
        env: { HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), INDX_VAULT: dir, INDX_DATA_DIR: join(dir, "data"), INDX_LOG: "off", ...extra },
      }),
    ),
  );
const tokens = (tools: Tool[], withOutput = false) => tools.reduce((sum, t) => sum + encode(toolText(t, withOutput)).length, 0);

const plain = vaultOf({});
const core = vaultOf({ INDX_MCP_TOOLS: "core" });
const ai = vaultOf({
  INDX_AI_PROVIDER: "ollama",
  INDX_AI_MODEL: "any-chat-model",
  INDX_EMBEDDINGS_PROVIDER: "ollama",
  INDX_EMBEDDINGS_MODEL: "any-embedding-model",
});
try {
  const all = visibleTools(ADMIN, plain);
  const withAi = visibleTools(ADMIN, ai);
  const coreTools = visibleTools(ADMIN, core);
  const readOnly = visibleTools(new Set<Scope>(["vault:read"]), plain);
  const record = {
    bench: "catalogue",
    tokenizer: "o200k",
    default: { tools: all.length, tokens: tokens(all), with_output_schema: tokens(all, true) },
    core: { tools: coreTools.length, tokens: tokens(coreTools) },
    with_ai: { tools: withAi.length, tokens: tokens(withAi), with_output_schema: tokens(withAi, true) },
    read_only: { tools: readOnly.length, tokens: tokens(readOnly) },
    instructions: {
      default: encode(instructionsFor({ scopes: ADMIN, noteCount: 5000, tools: all })).length,
      core: encode(instructionsFor({ scopes: ADMIN, noteCount: 5000, tools: coreTools, allowed: withAi.map((t) => t.name) })).length,
      read_only: encode(instructionsFor({ scopes: new Set<Scope>(["vault:read"]), noteCount: 5000, tools: readOnly })).length,
    },
    per_tool: Object.fromEntries(withAi.map((t) => [t.name, encode(toolText(t)).length])),
  };
  if (process.stdout.isTTY)
    console.log(
      `catalogue (o200k): default ${record.default.tokens} (${record.default.tools} tools) · core ${record.core.tokens} (${record.core.tools}) · with AI ${record.with_ai.tokens} (${record.with_ai.tools}) · instructions ${record.instructions.default} (core ${record.instructions.core})`,
    );
  emit(record);
} finally {
  for (const app of [plain, core, ai]) app.close();
  rmSync(dir, { recursive: true, force: true });
}
