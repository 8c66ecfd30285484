import { VERSION } from "../core/version.ts";

/** Server identity and agent onboarding, word for word as docs/mcp.md (Identity) quotes them. */
export const SERVER_NAME = "indx";

export const INSTRUCTIONS =
  "You are connected to an indx vault. Notes are markdown files identified by vault-relative posix paths. Prefer note_patch with structured ops over note_write whenever you only need to change a section. Search before you read; read before you write; pass the etag back on writes.";

export const SERVER_INFO = { name: SERVER_NAME, version: VERSION } as const;

/** What every indx MCP session offers (resources/subscribe is handled by indx itself). */
export const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: false },
  logging: {},
  completions: {},
} as const;
