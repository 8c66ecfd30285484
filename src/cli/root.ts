import type { CommandDef } from "citty";
import { VERSION } from "../core/version.ts";
import { HELP_TEXT } from "./help.ts";

/**
 * The command tree. Leaves load lazily so `indx --help` and `indx search` only parse what they use.
 * Names follow the mapping table (docs/contracts.md, Operations): `indx note get`,
 * `indx link backlinks`, …
 */
const ops = () => import("./op-commands.ts");
const admin = () => import("./admin-commands.ts");

export const root: CommandDef = {
  meta: {
    name: "indx",
    version: VERSION,
    description: "Index an Obsidian-style Markdown vault and search, read, edit and serve it (CLI, REST, MCP).",
  },
  subCommands: {
    init: async () => (await import("./init-command.ts")).initCommand,
    search: async () => (await import("./search-commands.ts")).searchCommand,
    related: async () => (await import("./search-commands.ts")).relatedCommand,
    context: async () => (await import("./context-command.ts")).contextCommand,
    note: async () => (await ops()).noteCommand,
    daily: async () => (await ops()).dailyCommand,
    link: async () => (await ops()).linkCommand,
    tag: async () => (await ops()).tagCommand,
    chunk: async () => (await ops()).chunkCommand,
    attachment: async () => (await ops()).attachmentCommand,
    canvas: async () => (await ops()).canvasCommand,
    base: async () => (await ops()).baseCommand,
    vault: async () => (await ops()).vaultCommand,
    ai: async () => (await import("./ai-commands.ts")).aiCommand,
    serve: async () => (await admin()).serveCommand,
    mcp: async () => (await import("./mcp-command.ts")).mcpCommand,
    events: async () => (await import("./events-command.ts")).eventsCommand,
    service: async () => (await import("./service-command.ts")).serviceCommand,
    health: async () => (await import("./health-command.ts")).healthCommand,
    token: async () => (await import("./token-commands.ts")).tokenCommand,
    auth: async () => (await import("./auth-commands.ts")).authCommand,
    config: async () => (await admin()).configCommand,
    doctor: async () => (await import("./doctor-command.ts")).doctorCommand,
    completion: async () => (await import("./completion-command.ts")).completionCommand,
  },
};

/**
 * The command list of `indx --help`, written out so that printing it loads no command (each would
 * bring its operations in). test/unit/cli/root-help.test.ts keeps every line equal to the first
 * sentence of the command's own description.
 */
const ROOT_SUMMARIES: Readonly<Record<string, string>> = {
  init: "Set indx up for a vault: configuration, index, admin token, MCP set-ups",
  search: "Search the vault",
  related: "Notes related to a note or chunk",
  context: "A topic with its neighbourhood",
  note: "Notes: get, get-many, list, outline, exists, capture, update, patch, delete, move",
  daily: "Today's (or a given day's) daily note",
  link: "The link graph: backlinks, forward links, unresolved links, links to missing headings and blocks, orphans",
  tag: "Tags: list them, the notes that carry one, rename one everywhere",
  chunk: "Chunks (heading-aware sections) of notes",
  attachment: "Attachments (non-Markdown files): metadata or bytes (get), a PDF's or DOCX's text (text), upload (put)",
  canvas: "JSON Canvas files: get, create (or replace), patch",
  base: "Obsidian bases: run a view of a .base file, a note's base block, or inline base YAML",
  vault: "The vault and its index: status, index, config, property checks",
  ai: "Grounded AI over the vault: ask, summarize, table of contents, relate, tags, metadata, extraction, status",
  serve: "Serve the vault over REST and MCP (HTTP), keeping the index current",
  mcp: "Run the MCP server over stdio for an agent (Claude Code, Cursor, Codex)",
  events: "Show the vault's events (writes, changes seen on disk, index updates); --follow streams new ones",
  service: "Keep `indx serve` running as a user service: install, uninstall, status",
  health: "Ask the running `indx serve` of this configuration whether it is up (GET /health); exits 1 when it is not",
  token: "Manage bearer tokens for `indx serve`",
  auth: "Approve OAuth clients of `indx serve` (the consent page asks for the code this prints)",
  config: "Read and write the user configuration (TOML)",
  doctor: "Check the set-up and say how to fix what is wrong",
  completion: "Print a shell's completion script (bash, zsh, fish, powershell)",
};
HELP_TEXT.set(root, { summaries: ROOT_SUMMARIES });
