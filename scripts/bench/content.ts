#!/usr/bin/env bun
/**
 * Tokens (chars/4) of a tool result's text content as dist/indx sends it, against the plain
 * JSON of the same result (compact, and pretty-printed as many servers send it), on typical
 * results from a temporary copy of fixtures/demo-vault: a vault_search with 10 hits and a
 * note_read. Prints one JSON line. Build the binary first (`bun run build`).
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, emit, ROOT } from "./common.ts";

if (!existsSync(BIN)) {
  emit({ bench: "content", skipped: "dist/indx missing: run bun run build" });
  process.exit(0);
}

const CALLS: Record<string, Record<string, unknown>> = {
  search_10_hits: { name: "vault_search", arguments: { q: "the OR a", limit: 10 } },
  note_read: { name: "note_read", arguments: { path: "Projects/Apollo Launch.md" } },
  note_list: { name: "note_list", arguments: { limit: 10 } },
};

const tokens = (s: string) => Math.round(s.length / 4);

const dir = mkdtempSync(join(tmpdir(), "indx-bench-content-"));
cpSync(join(ROOT, "fixtures", "demo-vault"), join(dir, "vault"), { recursive: true });
const env = {
  PATH: process.env.PATH ?? "",
  HOME: dir,
  INDX_VAULT: join(dir, "vault"),
  INDX_DATA_DIR: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
  INDX_LOG: "off",
};
const client = new Client({ name: "bench-content", version: "1" });
try {
  await client.connect(new StdioClientTransport({ command: BIN, args: ["mcp", "--read-only", "--no-watch"], env }));
  const record: Record<string, unknown> = { bench: "content" };
  for (const [label, call] of Object.entries(CALLS)) {
    const r = await client.callTool(call as { name: string; arguments: Record<string, unknown> });
    const text = (r.content as { text: string }[])[0]!.text;
    const items = (r.structuredContent as { results?: unknown[] }).results?.length;
    record[label] = {
      ...(items !== undefined ? { hits: items } : {}),
      content_tokens: tokens(text),
      json_tokens: tokens(JSON.stringify(r.structuredContent)),
      pretty_json_tokens: tokens(JSON.stringify(r.structuredContent, null, 2)),
    };
  }
  emit(record);
} finally {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
