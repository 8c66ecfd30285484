import type { ArgsDef, CommandDef, ParsedArgs } from "citty";
import { IndxError } from "../core/errors.ts";
import { closest } from "../core/suggest.ts";
import type { AnyOperation } from "../ops/define.ts";
import { GLOBAL_ARGS } from "./global-args.ts";
import { HELP_TEXT } from "./help.ts";

/** The operation a command runs: lets a test check that every operation has a command. */
export const COMMAND_OPS = new WeakMap<object, AnyOperation>();

/** The flags a hand-written command's `run` gets: its own and the global ones, typed by their definitions. */
export type Flags<A extends ArgsDef> = ParsedArgs<A & typeof GLOBAL_ARGS>;

/**
 * A hand-written command (admin, events, mcp). It accepts the global flags besides its own,
 * refuses unknown flags, and gives `run` the parsed flags typed by `args`. Commands generated
 * from an operation use opCommand() instead.
 */
export function command<const A extends ArgsDef>(def: {
  description: string;
  args: A;
  /** The operation this command runs, when it is the CLI face of one (`vault index` runs vault_reindex). */
  runs?: AnyOperation;
  /** Worked examples for --help, each a whole command line. */
  examples: string[];
  /** More than the one-line description, for this command's own --help. */
  long?: string;
  run(flags: Flags<A>, rawArgs: string[]): void | Promise<void>;
}): CommandDef<A & typeof GLOBAL_ARGS> {
  const args = { ...def.args, ...GLOBAL_ARGS };
  const cmd: CommandDef<A & typeof GLOBAL_ARGS> = {
    meta: { description: def.description },
    args,
    run({ args: flags, rawArgs }) {
      rejectUnknownFlags(rawArgs, args);
      return def.run(flags, rawArgs);
    },
  };
  if (def.runs) COMMAND_OPS.set(cmd, def.runs);
  HELP_TEXT.set(cmd, { long: def.long, examples: def.examples });
  return cmd;
}

/** citty accepts unknown flags silently; a misspelt option must fail instead of doing nothing. */
function rejectUnknownFlags(rawArgs: string[], args: ArgsDef): void {
  const known = new Set<string>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    known.add(name);
    if (def.type === "boolean") known.add(`no-${name}`);
    if ("alias" in def) for (const a of [def.alias ?? []].flat()) known.add(a);
  }
  for (const a of rawArgs) {
    if (a === "--") break;
    const word = /^--?([^=]+)/.exec(a)?.[1];
    if (word === undefined || /^-\d/.test(a) || a === "-") continue;
    if (!known.has(word)) {
      const [option = a] = a.split("=");
      const near = closest(
        word,
        [...known].filter((k) => k.length > 1),
      ).map((k) => `--${k}`);
      throw new IndxError("validation_failed", `Unknown option ${option}.${near.length ? ` Did you mean ${near.join(" or ")}?` : ""} See --help.`, { option });
    }
  }
}
