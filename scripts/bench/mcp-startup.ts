#!/usr/bin/env bun
/**
 * What an MCP session's start costs at a vault's size: createSession + initialize over an
 * in-memory transport with the SDK client, in process, on the generated vault (BENCH_N notes,
 * default 5,000; ../shared/tools/corpus-gen.ts). Before each run one note is re-indexed, so every
 * figure is the first session after an index change (what an agent meets after any write), not a
 * cached one. Prints one JSON line: median and p90 of RUNS.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { createSession } from "../../src/mcp/session.ts";
import type { Scope } from "../../src/ops/define.ts";
import { Vault } from "../../src/vault/vault.ts";
import { emit, generatedVault, isolatedEnv, median, percentile, requireShared, round } from "./common.ts";

if (!requireShared("mcp-startup")) process.exit(0);
const n = Number(process.env.BENCH_N ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const vaultDir = generatedVault(n, 42);
const app = new App(Vault.open(loadConfig({ flags: {}, env: isolatedEnv(`mcp-startup-${n}`, vaultDir) })));
await app.updateIndex({ build: true });
const hub = new McpHub(app);
const touched = app.index.notes.list("path")[0]?.path;
if (!touched) throw new Error("empty vault");

const times: number[] = [];
for (let i = 0; i <= RUNS; i++) {
  await app.updateIndex({ paths: [touched] });
  const started = performance.now();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = await createSession(hub, { scopes: new Set<Scope>(["vault:read", "vault:write"]) });
  await session.server.connect(serverSide);
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(clientSide);
  if (i > 0) times.push(performance.now() - started);
  await client.close();
  await session.close();
}
hub.close();
app.close();
emit({ bench: "mcp-startup", notes: n, runs: RUNS, initialize_median_ms: round(median(times), 2), initialize_p90_ms: round(percentile(times, 90), 2) });
