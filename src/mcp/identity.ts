import { VERSION } from "../core/version.ts";
import type { Scope } from "../ops/define.ts";
import { hasScope } from "../ops/invoke.ts";
import { compactField } from "./compact-schema.ts";
import type { Glossary } from "./glossary.ts";

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
  /** Input fields and types several of this session's tools share (glossary.ts). */
  glossary: Glossary;
}

/**
 * The instructions sent at initialize, fitted to the session: a read-only session is not taught
 * how to write. They also carry what the tool schemas leave out to stay small: the fields and
 * types several tools share, said once.
 */
export function instructionsFor(facts: SessionFacts): string {
  const size = facts.noteCount === null ? "" : ` of ${facts.noteCount} notes`;
  const lines = [
    `You are connected to an indx vault${size}: Markdown notes identified by vault-relative POSIX paths.`,
    "Search before you read: vault_search returns compact hits; read only what you need with chunk_get or note_read.",
    hasScope(facts.scopes, "vault:write")
      ? "Read before you write and pass the etag back as if_match. To change part of a note prefer note_patch (structured ops) over note_write. A failed write changes nothing."
      : "This session is read-only: propose changes to the user instead of making them.",
    "Every tool result carries its data as structuredContent and, for clients that show only text, as text content.",
    "Resources (vault://<path>, vault://search?q=…, vault://graph, vault://tags) can be watched with resources/subscribe: notifications/resources/updated says when they change.",
  ];
  const { fields, types } = facts.glossary;
  if (fields.size > 0) {
    lines.push(
      "Tools accept only the fields their schemas list. Fields several tools share, with the bounds and default they take unless a tool's schema gives its own:",
    );
    for (const [name, meanings] of fields)
      for (const { description, details } of meanings)
        lines.push(`- ${name}: ${description}${Object.keys(details).length > 0 ? ` ${JSON.stringify(details)}` : ""}`);
  }
  if (types.size > 0) {
    lines.push("Types several tools share (a schema titled with one of these names is that type):");
    for (const [title, { title: _title, description, ...schema }] of types)
      lines.push(`- ${title}: ${typeof description === "string" ? `${description} ` : ""}${JSON.stringify(compactField(schema, types))}`);
  }
  return lines.join("\n");
}
