import { type CommandDef, renderUsage, runCommand } from "citty";
import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { LONG_HELP } from "./help.ts";
import { print, printErr } from "./io.ts";

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
    search: async () => (await ops()).searchCommand,
    related: async () => (await ops()).relatedCommand,
    note: async () => (await ops()).noteCommand,
    link: async () => (await ops()).linkCommand,
    tag: async () => (await ops()).tagCommand,
    chunk: async () => (await ops()).chunkCommand,
    attachment: async () => (await ops()).attachmentCommand,
    canvas: async () => (await ops()).canvasCommand,
    base: async () => (await ops()).baseCommand,
    vault: async () => (await ops()).vaultCommand,
    ai: async () => (await import("./ai-commands.ts")).aiCommand,
    serve: async () => (await admin()).serveCommand,
    token: async () => (await admin()).tokenCommand,
    config: async () => (await admin()).configCommand,
    mcp: async () => (await import("./mcp-command.ts")).mcpCommand,
    events: async () => (await import("./events-command.ts")).eventsCommand,
  },
};

async function resolve<T>(v: T | Promise<T> | (() => T | Promise<T>)): Promise<T> {
  return typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;
}

/** Walks argv down the command tree: the deepest command named, and its parent. */
async function findCommand(argv: string[]): Promise<{ cmd: CommandDef; path: string[]; unknown?: string }> {
  let cmd = root;
  const path: string[] = [];
  for (const word of argv) {
    if (word.startsWith("-")) continue;
    const subs = cmd.subCommands ? await resolve(cmd.subCommands) : undefined;
    if (!subs) break;
    const next = subs[word];
    if (!next) return { cmd, path, unknown: word };
    path.push(word);
    cmd = await resolve(next);
  }
  return { cmd, path };
}

/** Usage text with the full command name (citty would fall back to the executable's path). */
async function usageOf(cmd: CommandDef, path: string[]): Promise<string> {
  if (path.length === 0) return renderUsage(root);
  const meta = await resolve(cmd.meta ?? {});
  const named: CommandDef = { ...cmd, meta: { ...meta, name: path[path.length - 1] } };
  return renderUsage(named, { meta: { name: ["indx", ...path.slice(0, -1)].join(" "), version: VERSION } });
}

export async function main(argv: string[]): Promise<number> {
  try {
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
      print(VERSION);
      return 0;
    }
    const found = await findCommand(argv);
    const wantsHelp = argv.includes("--help") || argv.includes("-h");
    if (found.unknown && !wantsHelp) throw new IndxError("validation_failed", `Unknown command: ${found.unknown}. See indx --help.`);
    if (wantsHelp || (found.cmd.subCommands && !found.cmd.run)) {
      const long = LONG_HELP.get(found.cmd);
      const usage = await usageOf(found.cmd, found.path);
      print(plain(long ? `${usage}\n\n${long}` : usage));
      return wantsHelp || argv.length === 0 ? 0 : 2;
    }
    await runCommand(root, { rawArgs: argv });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (!(err instanceof IndxError)) debugLog("command failed", { error: err });
    const e = citeCittyError(err) ?? toIndxError(err);
    printErr(`error: ${e.message} (${e.code})`);
    return e.exitCode;
  }
}

/** citty colours its usage text even when piped; keep colours for terminals only. */
function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the ANSI colour codes removed here
  return process.stdout.isTTY && !process.env.NO_COLOR ? text : text.replace(/\x1b\[[0-9;]*m/g, "");
}

/** citty throws plain errors for a missing required argument: those are the user's, not ours. */
function citeCittyError(err: unknown): IndxError | null {
  if (err instanceof IndxError) return null;
  const code = (err as { code?: string }).code;
  if (code === "EARG" || code === "E_UNKNOWN_COMMAND" || code === "E_NO_COMMAND")
    return new IndxError("validation_failed", (err as Error).message.replace(/\/[^\s]+/g, ""));
  return null;
}
