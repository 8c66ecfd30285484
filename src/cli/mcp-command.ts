import { IndxError } from "../core/errors.ts";
import type { Scope } from "../ops/define.ts";
import { command } from "./command.ts";
import { openContext } from "./context.ts";

/**
 * `indx mcp` and `indx mcp serve --stdio`: the MCP server over stdio for local agents. A leaf
 * command with an optional `serve` word (citty would take a flag's value for a subcommand name).
 * Streamable HTTP is served at /mcp by `indx serve`.
 */
export const mcpCommand = command({
  description:
    "Run the MCP server over stdio for an agent (Claude Code, Cursor, Codex): `indx mcp` or `indx mcp serve --stdio`. Scopes: vault:read + vault:write by default; --read-only for vault:read only; --admin adds vault:admin (vault_reindex, vault_config_get). Over HTTP, MCP is at /mcp on `indx serve`.",
  args: {
    action: { type: "positional", required: false, description: "serve (optional)." },
    stdio: { type: "boolean", description: "Use the stdio transport (the default and only local transport)." },
    "read-only": { type: "boolean", description: "Only the vault:read scope: no write or admin tools." },
    admin: { type: "boolean", description: "Also grant vault:admin (reindex, configuration)." },
    "no-watch": { type: "boolean", description: "Do not watch the vault for changes." },
  },
  async run(flags, rawArgs) {
    if (flags.action !== undefined && flags.action !== "serve")
      throw new IndxError("validation_failed", `Unknown mcp action: ${flags.action}. Use \`indx mcp\` or \`indx mcp serve --stdio\`.`);
    const readOnly = flags["read-only"] === true;
    if (readOnly && flags.admin) throw new IndxError("validation_failed", "--read-only and --admin exclude each other.");
    const scopes = new Set<Scope>(readOnly ? ["vault:read"] : flags.admin ? ["vault:read", "vault:write", "vault:admin"] : ["vault:read", "vault:write"]);
    const ctx = openContext(flags);
    const { serveStdio } = await import("../mcp/stdio.ts");
    await serveStdio(ctx, { scopes, watch: flags["no-watch"] !== true && !rawArgs.includes("--no-watch") });
    process.exit(0);
  },
});
