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
    let a = args[i]!;
    // `--cache false` as `--cache=false`: the parser would otherwise take a boolean flag's value for
    // an argument. For a flag that takes text the two spellings mean the same.
    if (a.startsWith("--") && !a.includes("=") && (args[i + 1] === "true" || args[i + 1] === "false") && i + 1 < end) a = `${a}=${args[++i]}`;
    const name = a.split("=")[0]!;
    if (VALUE_FLAGS.has(a) && i + 1 < end) globals.push(a, args[++i]!);
    else if (VALUE_FLAGS.has(name) || name === "--json") globals.push(a);
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
    const a = argv[i]!;
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (a.startsWith("--json=")) {
      fields = a.slice(7).split(",").filter(Boolean);
      out.push("--json");
    } else if (a === "--json" && i + 1 < argv.length && FIELD_LIST.test(argv[i + 1]!) && (argv[i + 1]!.includes(",") || knownFields.has(argv[i + 1]!))) {
      fields = argv[++i]!.split(",");
      out.push("--json");
    } else out.push(a);
  }
  return { argv: out, fields };
}
