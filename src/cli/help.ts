import type { CommandDef } from "citty";

/** The full operation description, shown under the usage of that command's own --help. */
export const LONG_HELP = new WeakMap<CommandDef, string>();
