import { type CommandDef, runCommand } from "citty";
import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { jsonFieldCandidate, normalizeArgv, takeJsonFields } from "./argv.ts";
import { outputFields, requestFields } from "./fields.ts";
import { HELP_TEXT, renderHelp } from "./help.ts";
import { print, printErr } from "./io.ts";
import { didYouMean } from "./suggest.ts";
import { resolveValue } from "./tree.ts";

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
    token: async () => (await admin()).tokenCommand,
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
  note: "Notes: get, get-many, list, outline, exists, update, patch, delete, move",
  daily: "Today's (or a given day's) daily note",
  link: "The link graph: backlinks, forward links, unresolved links, links to missing headings and blocks, orphans",
  tag: "Tags: list them, the notes that carry one, rename one everywhere",
  chunk: "Chunks (heading-aware sections) of notes",
  attachment: "Attachments (non-Markdown files): metadata or bytes (get), upload (put)",
  canvas: "JSON Canvas files: get, create (or replace), patch",
  base: "Obsidian bases: run a view of a .base file, a note's base block, or inline base YAML",
  vault: "The vault and its index: status, index, config",
  ai: "Grounded AI over the vault: ask, summarize, table of contents, relate, tags, metadata, extraction, status",
  serve: "Serve the vault over REST and MCP (HTTP), keeping the index current",
  mcp: "Run the MCP server over stdio for an agent (Claude Code, Cursor, Codex)",
  events: "Show the vault's events (writes, changes seen on disk, index updates); --follow streams new ones",
  token: "Manage bearer tokens for `indx serve`",
  config: "Read and write the user configuration (TOML)",
  doctor: "Check the set-up and say how to fix what is wrong",
  completion: "Print a shell's completion script (bash, zsh, fish, powershell)",
};
HELP_TEXT.set(root, { summaries: ROOT_SUMMARIES });

/** Walks argv down the command tree: the deepest command named, and the word that named none. */
export async function findCommand(argv: readonly string[]): Promise<{ cmd: CommandDef; path: string[]; unknown?: string; siblings?: string[] }> {
  let cmd = root;
  const path: string[] = [];
  for (const word of argv) {
    if (word.startsWith("-")) continue;
    if (!cmd.subCommands) break;
    // Only the command named is loaded: each brings its operations in, and `indx search` should
    // load search's alone (docs/decisions.md, "A CLI read that is current and fast").
    const subs = await resolveValue(cmd.subCommands);
    const next = subs[word];
    if (!next) return { cmd, path, unknown: word, siblings: Object.keys(subs) };
    path.push(word);
    cmd = await resolveValue(next);
  }
  return { cmd, path };
}

export async function main(rawArgv: string[]): Promise<number> {
  try {
    if (rawArgv.length === 1 && (rawArgv[0] === "--version" || rawArgv[0] === "-v")) {
      print(VERSION);
      return 0;
    }
    if (rawArgv[0] === "__complete") {
      const { complete } = await import("./completion.ts");
      print((await complete(rawArgv.slice(1))).join("\n"));
      return 0;
    }
    const candidate = jsonFieldCandidate(rawArgv);
    const known = candidate && !candidate.includes(",") ? await allOutputFields() : new Set<string>();
    const taken = takeJsonFields(rawArgv, known);
    requestFields(taken.fields);
    const argv = normalizeArgv(taken.argv);
    const found = await findCommand(argv);
    const wantsHelp = argv.includes("--help") || argv.includes("-h");
    if (found.unknown && !wantsHelp) {
      const where = ["indx", ...found.path].join(" ");
      throw new IndxError(
        "validation_failed",
        `Unknown command: ${where} ${found.unknown}.${didYouMean(found.unknown, found.siblings ?? [])} See ${where} --help.`,
        {
          command: found.unknown,
        },
      );
    }
    if (wantsHelp || (found.cmd.subCommands && !found.cmd.run)) {
      print(await renderHelp(found.cmd, found.path));
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

/** Every field name an operation's output has (for telling `--json path` from `--json <positional>`). */
async function allOutputFields(): Promise<Set<string>> {
  const { OPERATIONS } = await import("../ops/registry.ts");
  const names = new Set<string>();
  for (const op of OPERATIONS) {
    const { top, rows } = outputFields(op);
    for (const n of [...top, ...rows]) names.add(n);
  }
  return names;
}

/** citty throws plain errors for a missing required argument: those are the user's, not ours. */
function citeCittyError(err: unknown): IndxError | null {
  if (err instanceof IndxError) return null;
  const code = (err as { code?: string }).code;
  if (code === "EARG" || code === "E_UNKNOWN_COMMAND" || code === "E_NO_COMMAND")
    return new IndxError("validation_failed", (err as Error).message.replace(/\/[^\s]+/g, ""));
  return null;
}
