import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../core/version.ts";
import type { Scope } from "../ops/define.ts";
import { hasScope } from "../ops/invoke.ts";

/** Server identity and agent onboarding (docs/mcp.md, Identity). */
export const SERVER_NAME = "indx";

export const SERVER_INFO = { name: SERVER_NAME, version: VERSION } as const;

/** What every indx MCP session offers (resources/subscribe is handled by indx itself). */
export const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: false },
  logging: {},
  completions: {},
} as const;

export interface SessionFacts {
  scopes: ReadonlySet<Scope>;
  /** Notes in the index when the session opened; null when the index is not built yet. */
  noteCount: number | null;
  /** The tools the session lists: the instructions name only those, and say how to reach the rest. */
  tools: readonly Tool[];
  /** Every tool the session's scopes allow, listed or not (a profile lists fewer). */
  allowed?: readonly string[];
}

/**
 * The instructions sent at initialize, fitted to the session: a read-only session is not taught
 * how to write; a session whose profile lists fewer tools is told what else it can ask for. What
 * each field means is in the tool's own schema (docs/decisions.md, "An MCP catalogue an agent can
 * afford"), so these stay short: clients drop or cut long instructions.
 */
export function instructionsFor(facts: SessionFacts): string {
  const size = facts.noteCount === null ? "" : ` of ${facts.noteCount} notes`;
  const listed = new Set(facts.tools.map((t) => t.name));
  const has = (name: string) => listed.has(name);
  const lines = [
    `You are connected to an indx vault${size}: Markdown notes named by vault-relative paths ('Projects/Foo.md'); reads also take a note's name ('Foo').`,
    `Search before you read: vault_search gives compact hits; read only what you need${has("chunk_get") ? " with chunk_get or note_read" : " with note_read"}${has("activate_context") ? ", or get a project's context at once with activate_context" : ""}.`,
    hasScope(facts.scopes, "vault:write")
      ? "Read before you write and pass the etag back as if_match; to change part of a note prefer note_patch over note_write. A failed write changes nothing; dry_run shows a plan first."
      : "This session is read-only: propose changes to the user instead of making them.",
    "Results carry their data as structuredContent and as text. Lists page with limit and cursor (next_cursor).",
  ];
  if (has("vault_search")) lines.push("Resources (vault://<path>, vault://search?q=…, vault://graph, vault://tags) can be watched with resources/subscribe.");
  const unlisted = (facts.allowed ?? []).filter((name) => !listed.has(name));
  if (unlisted.length > 0)
    lines.push(
      `This session lists a profile of the tools. Also available by name, or listed with \`indx mcp --tools all\` (config mcp.tools): ${unlisted.join(", ")}.`,
    );
  return lines.join("\n");
}
