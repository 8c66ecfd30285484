#!/usr/bin/env bun
/**
 * What the MCP tool catalogue costs an agent on every turn, in tokens (chars/4 of the JSON of each
 * tool's name, description and inputSchema; with outputSchema reported separately), for a full
 * (admin) session and a read-only one, plus the instructions sent once at initialize. Runs in
 * process (no binary, no vault). Prints one JSON line. `indx mcp catalogue` prints the same size.
 */
import { catalogueSize, visibleTools } from "../../src/mcp/catalogue.ts";
import { glossaryOf } from "../../src/mcp/glossary.ts";
import { instructionsFor } from "../../src/mcp/identity.ts";
import type { Scope } from "../../src/ops/define.ts";
import { emit } from "./common.ts";

const SESSIONS: Record<string, Scope[]> = { admin: ["vault:read", "vault:write", "vault:admin"], read_only: ["vault:read"] };

const record: Record<string, unknown> = { bench: "catalogue" };
for (const [label, list] of Object.entries(SESSIONS)) {
  const scopes = new Set(list);
  const instructions = instructionsFor({ scopes, noteCount: 5000, glossary: glossaryOf(visibleTools(scopes)) });
  record[label] = { ...catalogueSize(scopes), instructions_tokens: Math.round(instructions.length / 4) };
}
emit(record);
