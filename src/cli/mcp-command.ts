import type { App } from "../app/context.ts";
import { TokenStore } from "../auth/tokens.ts";
import { IndxError } from "../core/errors.ts";
import type { Scope } from "../ops/define.ts";
import type { GrantSpec } from "../ops/grant.ts";
import { hasScope } from "../ops/invoke.ts";
import { compileGrant } from "../vault/grant.ts";
import { command } from "./command.ts";
import { type GlobalFlags, openContext } from "./context.ts";
import { print, printErr } from "./io.ts";
import { chooseFormat } from "./output.ts";

/**
 * `indx mcp` and `indx mcp serve --stdio`: the MCP server over stdio for local agents. A leaf
 * command with an optional action word (citty would take a flag's value for a subcommand name):
 * `serve`, or `catalogue` to print what the tool catalogue costs an agent. Streamable HTTP is
 * served at /mcp by `indx serve`.
 */
export const mcpCommand = command({
  description: "Run the MCP server over stdio for an agent (Claude Code, Cursor, Codex).",
  long: "`indx mcp` or `indx mcp serve --stdio`. Scopes: vault:read + vault:write by default; --read-only for vault:read only; --admin adds vault:admin (vault_reindex, vault_config_get, vault_config_set, vault_list). Over HTTP, MCP is at /mcp on `indx serve`.",
  examples: ["indx mcp", "indx mcp --read-only", "indx mcp --tools core", "claude mcp add indx -- indx mcp", "indx mcp catalogue"],
  args: {
    action: {
      type: "positional",
      required: false,
      description: "serve (the default), or catalogue: print the tool catalogue's size in tokens, in all and per tool.",
    },
    stdio: { type: "boolean", description: "Use the stdio transport (the default and only local transport)." },
    "read-only": { type: "boolean", description: "Only the vault:read scope: no write or admin tools." },
    admin: { type: "boolean", description: "Also grant vault:admin (reindex, configuration)." },
    "no-watch": { type: "boolean", description: "Do not watch the vault for changes." },
    tools: {
      type: "string",
      description:
        "The tools to list: all (the default), core (search, read, write, patch, list, backlinks) and/or tool names, comma-separated (config mcp.tools).",
    },
    token: {
      type: "string",
      description:
        "Serve as this bearer token (or set INDX_TOKEN, which no process list shows): its scopes narrow these, its folder grant applies (docs/permissions.md).",
    },
  },
  async run(flags, rawArgs) {
    if (flags.action !== undefined && flags.action !== "serve" && flags.action !== "catalogue")
      throw new IndxError("validation_failed", `Unknown mcp action: ${flags.action}. Use \`indx mcp\`, \`indx mcp serve --stdio\` or \`indx mcp catalogue\`.`);
    const readOnly = flags["read-only"] === true;
    if (readOnly && flags.admin) throw new IndxError("validation_failed", "--read-only and --admin exclude each other.");
    const scopes = new Set<Scope>(readOnly ? ["vault:read"] : flags.admin ? ["vault:read", "vault:write", "vault:admin"] : ["vault:read", "vault:write"]);
    const extra = flags.tools === undefined ? {} : { "mcp.tools": flags.tools };
    if (flags.action === "catalogue") return printCatalogueSize(scopes, flags, extra);
    const ctx = openContext(flags, extra);
    const presented = typeof flags.token === "string" ? flags.token : process.env.INDX_TOKEN;
    const as = presented ? stdioToken(ctx, presented, scopes) : null;
    // Started by hand, `indx mcp` would otherwise sit silent: an agent starts it, not a person.
    if (process.stdin.isTTY)
      printErr(
        "indx mcp: waiting for an MCP client on stdin (an agent starts this command; `indx init` prints the set-ups for Claude Code, Cursor and Codex). Ctrl-C to quit.",
      );
    const { serveStdio } = await import("../mcp/stdio.ts");
    await serveStdio(ctx, {
      scopes: as?.scopes ?? scopes,
      ...(as ? { grant: compileGrant(as.grant), tokenId: as.id } : {}),
      watch: flags["no-watch"] !== true && !rawArgs.includes("--no-watch"),
    });
    process.exit(0);
  },
});

/**
 * `indx mcp --token`: stdio served as a token, as /mcp serves it over HTTP: the flags' scopes
 * narrowed to the token's, and its folder grant on every call. A token that is not one is refused.
 */
function stdioToken(ctx: App, presented: string, asked: ReadonlySet<Scope>): { id: string; scopes: Set<Scope>; grant: GrantSpec | null } {
  const hit = new TokenStore(ctx.vault.dataDir).verify(presented, ctx.vault.config.str("server.api_key") ?? null);
  if (!hit) throw new IndxError("unauthorized", "Invalid token (--token or INDX_TOKEN).", { reason: "invalid_token" });
  const own = new Set(hit.scopes);
  return { id: hit.id, scopes: new Set([...asked].filter((s) => hasScope(own, s))), grant: hit.grant };
}

/** `indx mcp catalogue`: the tools these flags' scopes would see, in tokens (a JSON object with --json or when piped). */
async function printCatalogueSize(scopes: ReadonlySet<Scope>, flags: GlobalFlags, extra: Record<string, unknown>): Promise<void> {
  const { catalogueSize } = await import("../mcp/catalogue.ts");
  // The vault's configuration decides whether the AI tools are in it; no vault, no AI tools.
  let ctx: App | undefined;
  try {
    ctx = openContext(flags, extra);
  } catch {
    ctx = undefined;
  }
  const size = catalogueSize(scopes, ctx);
  ctx?.close();
  if (chooseFormat(flags, process.stdout.isTTY === true) !== "human") return print(JSON.stringify(size));
  print(
    `${size.tools} tools: ${size.tokens} tokens (name, description, inputSchema; chars/4), ${size.tokens_with_output_schema} with outputSchema. Scopes: ${[...scopes].join(", ")}.`,
  );
  for (const [tool, tokens] of Object.entries(size.per_tool)) print(`  ${tool}: ${tokens}`);
}
