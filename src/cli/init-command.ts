import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import { newToken } from "../auth/tokens.ts";
import { writeConfigValue } from "../config/load.ts";
import { IndxError } from "../core/errors.ts";
import { vaultReindex } from "../maintenance/ops.ts";
import { invokeOp } from "../ops/invoke.ts";
import { command } from "./command.ts";
import { configFromFlags, openContext } from "./context.ts";
import { print, printErr } from "./io.ts";
import { indxCommand, mcpSetups } from "./mcp-setups.ts";
import { chooseFormat, colorOn, render, styleFor } from "./output.ts";
import { progressBar } from "./progress.ts";
import { absoluteAsTyped, logicalCwd } from "./shell-paths.ts";

/**
 * `indx init`: from nothing to a working set-up in one command. On a terminal without --vault it
 * asks for the folder; with --vault (or piped) it asks nothing.
 */
export const initCommand = command({
  description: "Set indx up for a vault: configuration, index, admin token, MCP set-ups.",
  long: "Stores the vault folder (absolute) in the config file, builds the index with a progress bar, creates the admin token, and prints MCP set-ups for Claude Code, Claude Desktop, Cursor and Codex. Asks for the folder on a terminal; --vault answers it. Safe to run again.",
  examples: ["indx init", "indx init --vault ~/Notes", "indx init --vault . --no-index --json"],
  args: {
    "no-index": { type: "boolean", description: "Only write the configuration and the token; build the index later." },
  },
  async run(flags, rawArgs) {
    const typed = flags.vault ?? askForVault();
    // As the user typed it and as `pwd` shows it, symlinks kept (docs/decisions.md, "Paths as the user sees them").
    const vault = absoluteAsTyped(typed);
    if (!existsSync(vault) || !statSync(vault).isDirectory())
      throw new IndxError("not_found", `The vault folder ${vault} does not exist or is not a folder.`, { vault: basename(vault) });

    const config = configFromFlags({ ...flags, vault });
    writeConfigValue(config.path, "vault", vault);
    let index = null;
    if (!rawArgs.includes("--no-index") && flags["no-index"] !== true) {
      const ctx = openContext({ ...flags, vault });
      const bar = progressBar("indexing");
      try {
        index = (await invokeOp(vaultReindex, ctx.forCall({ progress: bar.update }), { embeddings: true })).result;
      } finally {
        bar.done();
        ctx.close();
      }
    }
    const tokenCreated = !config.str("server.api_key");
    if (tokenCreated) writeConfigValue(config.path, "server.api_key", newToken());

    const mcp = mcpSetups(indxCommand(), vault);
    const data = { config: config.path, vault, index, token_created: tokenCreated, mcp };
    const s = styleFor(colorOn());
    print(
      render(data, chooseFormat(flags, process.stdout.isTTY === true), () =>
        [
          `${s.green("✓")} vault ${vault} (saved in ${config.path})`,
          index ? `${s.green("✓")} ${vaultReindex.summary(index, { rebuild: false })}` : `${s.dim("·")} index not built (run indx vault index)`,
          ...(index?.warnings.some((w) => w.code === "vault_empty") ? [s.yellow("! the vault folder has no notes: is it the right folder?")] : []),
          `${s.green("✓")} admin token ${tokenCreated ? "created" : "kept"} (indx config reveal-api-key prints it)`,
          "",
          s.bold("Try it:"),
          "  indx search <words>      indx note get <path or name>      indx serve",
          "",
          s.bold("Claude Code:"),
          `  ${mcp.claude_code}`,
          "",
          s.bold("Claude Desktop (claude_desktop_config.json) and Cursor (.cursor/mcp.json):"),
          mcp.claude_desktop.replace(/^/gm, "  "),
          "",
          s.bold("Codex (~/.codex/config.toml):"),
          mcp.codex.replace(/^/gm, "  "),
        ].join("\n"),
      ),
    );
  },
});

/** The vault folder, asked for on a terminal (the current folder by default); elsewhere --vault is needed. */
function askForVault(): string {
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new IndxError("validation_failed", "indx init needs --vault <folder> when it cannot ask (not a terminal).", { option: "--vault" });
  printErr("Which folder is your vault? (Markdown notes, e.g. an Obsidian vault)");
  const here = logicalCwd();
  const answer = prompt(`Vault folder [${here}]:`)?.trim();
  return answer || here;
}
