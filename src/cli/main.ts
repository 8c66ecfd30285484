import { type CommandDef, runCommand } from "citty";
import { errnoOf } from "../core/errno.ts";
import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import { didYouMean } from "../core/suggest.ts";
import { VERSION } from "../core/version.ts";
import { checkLeadingFlags, jsonFieldCandidate, normalizeArgv, takeColorFlags, takeJsonFields } from "./argv.ts";
import { outputFields, requestFields } from "./fields.ts";
import { renderHelp } from "./help.ts";
import { print, printErr } from "./io.ts";
import { chooseColor } from "./output.ts";
import { root } from "./root.ts";
import { resolveValue } from "./tree.ts";

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

export async function main(argvIn: string[]): Promise<number> {
  let rawArgv = argvIn;
  try {
    if (rawArgv.length === 1 && (rawArgv[0] === "--version" || rawArgv[0] === "-v" || rawArgv[0] === "-V")) {
      print(VERSION);
      return 0;
    }
    if (rawArgv[0] === "__complete") {
      const { complete } = await import("./completion.ts");
      print((await complete(rawArgv.slice(1))).join("\n"));
      return 0;
    }
    const colored = takeColorFlags(rawArgv);
    rawArgv = colored.argv;
    chooseColor(colored.choice);
    checkLeadingFlags(rawArgv);
    const candidate = jsonFieldCandidate(rawArgv);
    const known = candidate && !candidate.includes(",") ? await allOutputFields() : new Set<string>();
    const taken = takeJsonFields(rawArgv, known);
    requestFields(taken.fields);
    const argv = normalizeArgv(taken.argv);
    const found = await findCommand(argv);
    const wantsHelp = argv.includes("--help") || argv.includes("-h");
    if (found.unknown) {
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
  const { OPERATIONS } = await import("../app/registry.ts");
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
  const code = errnoOf(err);
  if (code === "EARG" || code === "E_UNKNOWN_COMMAND" || code === "E_NO_COMMAND")
    return new IndxError("validation_failed", (err as Error).message.replace(/\/[^\s]+/g, ""));
  return null;
}
