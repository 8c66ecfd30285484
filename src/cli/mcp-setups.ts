import { commandOnPath } from "./shell-paths.ts";

/**
 * Ready-to-paste MCP set-ups for the agents people use, for this binary and vault. Claude Code's
 * `--env` takes several values, so the server name must come before it (else the name is read as
 * one more variable).
 */
export interface McpSetups {
  claude_code: string;
  claude_desktop: string;
  cursor: string;
  codex: string;
}

/**
 * The command an agent should start: this executable when it is the compiled indx (as PATH
 * reaches it, so an upgrade keeps the set-up working), else `indx` on PATH.
 */
export function indxCommand(): string {
  const compiled = Bun.main.startsWith("/$bunfs/") || /^[A-Z]:\\~BUN\\/.test(Bun.main);
  return compiled ? commandOnPath(process.execPath) : "indx";
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

export function mcpSetups(bin: string, vault: string): McpSetups {
  const stdio = { command: bin, args: ["mcp"], env: { INDX_VAULT: vault } };
  const json = (o: unknown) => JSON.stringify({ mcpServers: { indx: o } }, null, 2);
  return {
    claude_code: `claude mcp add indx --env INDX_VAULT=${shellQuote(vault)} -- ${shellQuote(bin)} mcp`,
    claude_desktop: json(stdio),
    cursor: json(stdio),
    codex: `[mcp_servers.indx]\ncommand = ${JSON.stringify(bin)}\nargs = ["mcp"]\nenv = { INDX_VAULT = ${JSON.stringify(vault)} }`,
  };
}
