import type { CommandDef } from "citty";

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

/** citty lets meta, args and subcommands be values, promises or (lazy) functions. */
export async function resolveValue<T>(v: Resolvable<T>): Promise<T> {
  return typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;
}

/** The subcommands of a command by name, resolved, or null for a leaf. */
export async function subCommandsOf(cmd: CommandDef): Promise<Record<string, CommandDef> | null> {
  if (!cmd.subCommands) return null;
  const subs = await resolveValue(cmd.subCommands);
  const out: Record<string, CommandDef> = {};
  for (const [name, c] of Object.entries(subs)) out[name] = await resolveValue(c as Resolvable<CommandDef>);
  return out;
}
