import { IndxError } from "../core/errors.ts";
import { didYouMean } from "../core/suggest.ts";
import { GLOBAL_ARGS } from "./global-args.ts";

const VALUE_FLAGS = new Set(Object.entries(GLOBAL_ARGS).flatMap(([n, a]) => (a.type === "string" ? [`--${n}`] : [])));
const FIELD_LIST = /^[a-z_][a-z0-9_]*(,[a-z_][a-z0-9_]*)*$/;

/**
 * Puts the global flags (--vault, --data-dir, --json, --format) after the command words, so
 * `indx --vault ~/Notes search x` works: citty parses each command level on its own and would take
 * the flag's value for a command name. `indx help note get` is `indx note get --help`. A flag
 * followed by the word true or false takes it as its value (`--cache false`).
 */
export function normalizeArgv(argv: readonly string[]): string[] {
  const args = argv[0] === "help" ? [...argv.slice(1), "--help"] : [...argv];
  const end = args.indexOf("--") === -1 ? args.length : args.indexOf("--");
  const rest: string[] = [];
  const globals: string[] = [];
  for (let i = 0; i < end; i++) {
    let a = args[i] ?? "";
    // `--cache false` as `--cache=false`: the parser would otherwise take a boolean flag's value for
    // an argument. For a flag that takes text the two spellings mean the same.
    if (a.startsWith("--") && !a.includes("=") && (args[i + 1] === "true" || args[i + 1] === "false") && i + 1 < end) a = `${a}=${args[++i]}`;
    const [name = a] = a.split("=");
    const next = args[i + 1];
    if (VALUE_FLAGS.has(a) && i + 1 < end && next !== undefined) {
      globals.push(a, next);
      i++;
    } else if (VALUE_FLAGS.has(name) || name === "--json") globals.push(a);
    else rest.push(a);
  }
  return [...rest, ...globals, ...args.slice(end)];
}

/** The word after `--json` when it could be a field list (`--json path,score`), else null. */
export function jsonFieldCandidate(argv: readonly string[]): string | null {
  const at = argv.indexOf("--json");
  const next = at === -1 ? undefined : argv[at + 1];
  return next !== undefined && FIELD_LIST.test(next) ? next : null;
}

/**
 * gh-style `--json a,b` (or `--json=a,b`): takes the field list out of argv, leaving `--json`.
 * A single word after --json is a field only when some operation's output has such a field, so
 * `indx note get --json Welcome.md` keeps its path. The command checks the fields against its own output.
 */
export function takeJsonFields(argv: readonly string[], knownFields: ReadonlySet<string>): { argv: string[]; fields: string[] | null } {
  const out: string[] = [];
  let fields: string[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    const next = argv[i + 1];
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (a.startsWith("--json=")) {
      fields = a.slice(7).split(",").filter(Boolean);
      out.push("--json");
    } else if (a === "--json" && next !== undefined && FIELD_LIST.test(next) && (next.includes(",") || knownFields.has(next))) {
      fields = next.split(",");
      i++;
      out.push("--json");
    } else out.push(a);
  }
  return { argv: out, fields };
}

/** `--color` / `--no-color` anywhere before `--`: taken out of argv (every command honours them), the last one wins. */
export function takeColorFlags(argv: readonly string[]): { argv: string[]; choice: boolean | null } {
  const end = argv.indexOf("--") === -1 ? argv.length : argv.indexOf("--");
  let choice: boolean | null = null;
  const out: string[] = [];
  for (const a of argv.slice(0, end)) {
    if (a === "--color" || a === "--color=always") choice = true;
    else if (a === "--no-color" || a === "--color=never") choice = false;
    else if (a === "--color=auto") choice = null;
    else out.push(a);
  }
  return { argv: [...out, ...argv.slice(end)], choice };
}

/** What may stand before the command word: the global flags, help and version. */
const LEADING = [...Object.keys(GLOBAL_ARGS).map((n) => `--${n}`), "--help", "-h", "--version", "-v", "-V", "--color", "--no-color"];

/**
 * Flags before the command word are global flags or nothing: an unknown one is an error, not
 * dropped (`indx --foo search x`), and a mistyped one is named rather than its value being taken
 * for a command (`indx --vualt DIR search x`). After the command word each command checks its own.
 */
export function checkLeadingFlags(argv: readonly string[]): void {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === undefined || a === "--" || !a.startsWith("-")) return;
    const [name = a] = a.split("=");
    if (VALUE_FLAGS.has(a)) i++;
    else if (!LEADING.includes(name) && !(name === "--json" || a.startsWith("--json="))) {
      throw new IndxError(
        "validation_failed",
        `Unknown option ${name} before the command.${didYouMean(name, LEADING)} Global options: ${Object.keys(GLOBAL_ARGS)
          .map((n) => `--${n}`)
          .join(", ")}, --no-color. See indx --help.`,
        { option: name },
      );
    }
  }
}
