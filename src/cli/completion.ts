import type { ArgsDef, CommandDef } from "citty";
import { App } from "../app/context.ts";
import { CONFIG_KEYS, KEY_BY_NAME, PATH_KEYS } from "../config/keys.ts";
import { loadConfig } from "../config/load.ts";
import { invokeOp } from "../ops/invoke.ts";
import { enumValues } from "../ops/schema-words.ts";
import { tagList } from "../tags/ops.ts";
import { Vault } from "../vault/vault.ts";
import { COMMAND_OPS } from "./command.ts";
import { GLOBAL_ARGS } from "./global-args.ts";
import { FORMATS } from "./output.ts";
import { root } from "./root.ts";
import { resolveValue, subCommandsOf } from "./tree.ts";

/** How the shell typed a word: `Apollo\ La` and `"Apollo La` are both `Apollo La`. */
const typedWord = (word: string) => (word === '""' || word === "''" ? "" : word.replace(/^["']/, "").replace(/\\(.)/g, "$1"));

/**
 * `indx __complete <words…>`: the candidates for the last word (possibly empty) of a command line
 * whose earlier words are given, for the shell scripts of `indx completion`. Driven by the command
 * tree and the operations' schemas, so a new operation completes without changes here: command
 * names, flags, enum values of flags, note paths and tags from the index.
 */
export async function complete(words: readonly string[]): Promise<string[]> {
  const typed = words.map(typedWord);
  const current = typed[typed.length - 1] ?? "";
  const before = typed.slice(0, -1);
  let cmd: CommandDef = root;
  const path: string[] = [];
  const positionals: string[] = [];
  const globals: Record<string, string> = {};
  for (let i = 0; i < before.length; i++) {
    const w = before[i] ?? "";
    const args = await argsOf(cmd);
    if (w.startsWith("--")) {
      const [name = ""] = w.slice(2).split("=");
      if (args[name]?.type === "string" && !w.includes("=")) globals[name] = before[++i] ?? "";
      continue;
    }
    const next = (await subCommandsOf(cmd))?.[w];
    if (next) {
      cmd = next;
      path.push(w);
    } else positionals.push(w);
  }
  const args = await argsOf(cmd);
  const previous = before[before.length - 1];
  const flagName = previous?.startsWith("--") && !previous.includes("=") ? previous.slice(2) : undefined;
  const flagTakingValue = flagName === undefined ? undefined : args[flagName];
  // A file or folder on disk: the shell's own completion knows it best (`~/No`, globs, quoting).
  const onDisk = diskKind(flagTakingValue?.valueHint);
  if (flagTakingValue?.type === "string" && onDisk) return [onDisk];
  if (path.join(" ") === "config get" || path.join(" ") === "config set") {
    const keys = configValues(positionals, current, path[1] === "set");
    if (keys) return keys;
  }
  const subs = await subCommandsOf(cmd);
  let candidates: string[];
  if (flagTakingValue?.type === "string" && flagName !== undefined) candidates = await flagValues(cmd, flagName, current, globals);
  else if (current.startsWith("-"))
    candidates = Object.entries(args)
      .filter(([, a]) => a.type !== "positional")
      .map(([n]) => `--${n}`);
  else if (subs) candidates = Object.keys(subs);
  else candidates = await positionalValues(cmd, args, positionals.length, current, globals);
  return candidates.filter((c) => c.startsWith(current)).sort();
}

/**
 * What `indx __complete` prints, alone, when the word is a file or a folder on disk: the shell
 * scripts of `indx completion` hand the word to the shell's own file completion then, so
 * `init --vault ~/No<TAB>` completes as it does for any other program.
 */
export const COMPLETE_FILES = "__indx_files__";
export const COMPLETE_DIRS = "__indx_dirs__";

function diskKind(hint: string | undefined): string | null {
  if (hint === "file") return COMPLETE_FILES;
  if (hint === "dir") return COMPLETE_DIRS;
  return null;
}

/**
 * `config get <key>` and `config set <key> <value>`: the keys, then the values a key takes (its
 * choices, true or false, a folder for the path keys). Null when there is nothing to offer.
 */
function configValues(positionals: readonly string[], current: string, setting: boolean): string[] | null {
  // A secret is shown (set or unset) but never set here: its variable or the file sets it.
  if (positionals.length === 0) return CONFIG_KEYS.filter((k) => !(setting && k.secret) && k.key.startsWith(current)).map((k) => k.key);
  const k = setting && positionals.length === 1 ? KEY_BY_NAME.get(positionals[0] ?? "") : undefined;
  if (!k) return null;
  if (PATH_KEYS.has(k.key)) return [COMPLETE_DIRS];
  const values = k.choices ? [...k.choices] : k.type === "bool" ? ["true", "false"] : [];
  return values.filter((v) => v.startsWith(current));
}

async function argsOf(cmd: CommandDef): Promise<ArgsDef> {
  return { ...GLOBAL_ARGS, ...((await resolveValue(cmd.args ?? {})) as ArgsDef) };
}

async function flagValues(cmd: CommandDef, flag: string, current: string, globals: Record<string, string>): Promise<string[]> {
  if (flag === "format") return [...FORMATS];
  if (flag === "tag") return tags(current, globals);
  const op = COMMAND_OPS.get(cmd);
  const schema = op?.input.properties[flag.replaceAll("-", "_")];
  return enumValues(schema);
}

async function positionalValues(cmd: CommandDef, args: ArgsDef, index: number, current: string, globals: Record<string, string>): Promise<string[]> {
  const op = COMMAND_OPS.get(cmd);
  const name = Object.entries(args).filter(([, a]) => a.type === "positional")[index]?.[0];
  if (!op || !name) return [];
  if (op.name.startsWith("tag_")) return tags(current, globals);
  const values = enumValues(op.input.properties[name]);
  if (values.length) return values;
  return ["path", "from", "to", "id"].includes(name) ? paths(globals) : [];
}

/** Reads the index as a one-shot CLI command would, without refreshing it; nothing at all when there is none. */
function withContext<T>(globals: Record<string, string>, fn: (ctx: App) => T | Promise<T>, fallback: T): Promise<T> {
  return (async () => {
    let ctx: App | null = null;
    try {
      ctx = new App(Vault.open(loadConfig({ flags: { vault: globals.vault, data_dir: globals["data-dir"] } })));
      return await fn(ctx);
    } catch {
      return fallback;
    } finally {
      ctx?.close();
    }
  })();
}

function paths(globals: Record<string, string>): Promise<string[]> {
  return withContext(globals, (ctx) => ctx.index.files.paths(), []);
}

function tags(current: string, globals: Record<string, string>): Promise<string[]> {
  const top = current.includes("/") ? current.split("/")[0] : undefined;
  return withContext(
    globals,
    async (ctx) => (await invokeOp(tagList, ctx, { limit: 1000, ...(top ? { prefix: top } : {}) })).result.tags.map((t) => t.tag),
    [],
  );
}
