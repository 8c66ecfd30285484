import type { CommandDef } from "citty";
import { VERSION } from "../core/version.ts";

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
    search: async () => (await ops()).searchCommand,
    related: async () => (await ops()).relatedCommand,
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
    token: async () => (await admin()).tokenCommand,
    config: async () => (await admin()).configCommand,
    doctor: async () => (await import("./doctor-command.ts")).doctorCommand,
    completion: async () => (await import("./completion-command.ts")).completionCommand,
  },
};
