import type { ArgDef, ArgsDef, CommandDef } from "citty";
import { GLOBAL_ARGS } from "./global-args.ts";
import { resolveValue } from "./tree.ts";
import { terminalWidth } from "./width.ts";
import { wrap } from "./wrap.ts";

/** What a command's --help shows beyond its flags: the long description and worked examples. */
export interface HelpText {
  long?: string;
  examples?: string[];
  /**
   * What the command list says of each subcommand, when loading the subcommands to read their own
   * descriptions would cost more than the list is worth (the root: `indx --help`).
   */
  summaries?: Readonly<Record<string, string>>;
}

/** Keyed by the command object, so commands generated from operations and written by hand both get one. */
export const HELP_TEXT = new WeakMap<object, HelpText>();

/** Help is wrapped to the terminal (COLUMNS, else the tty's width), at most 100 columns, 80 when piped. */
export function helpWidth(): number {
  return Math.max(40, Math.min(100, terminalWidth()));
}

const GLOBAL_NAMES = new Set(Object.keys(GLOBAL_ARGS));

/** The --help text of a command at `path` (["note", "get"]), in plain text. */
export async function renderHelp(cmd: CommandDef, path: string[], width = helpWidth()): Promise<string> {
  const meta = await resolveValue(cmd.meta ?? {});
  const args: ArgsDef = (await resolveValue(cmd.args ?? {})) as ArgsDef;
  const subs = cmd.subCommands ? await resolveValue(cmd.subCommands) : undefined;
  const text = HELP_TEXT.get(cmd) ?? {};
  const name = ["indx", ...path].join(" ");
  const out: string[] = [];

  const positionals = Object.entries(args).filter(([, a]) => a.type === "positional");
  const usage = [name, subs ? "<command>" : "", Object.keys(args).length > positionals.length ? "[options]" : ""];
  for (const [n, a] of positionals) usage.push(a.required === false ? `[${n}]` : `<${n}>`);
  out.push(wrap(`Usage: ${usage.filter(Boolean).join(" ")}`, width, "    ", ""), "");
  if (meta.description) out.push(wrap(meta.description, width), "");
  if (text.long && text.long !== meta.description) out.push(wrap(text.long, width), "");

  if (subs) {
    const entries = await Promise.all(
      Object.entries(subs).map(
        async ([n, c]) => [n, text.summaries?.[n] ?? firstSentence((await resolveValue((await resolveValue(c)).meta ?? {})).description ?? "")] as const,
      ),
    );
    out.push("Commands:", ...table(entries, width), "");
  }
  if (positionals.length)
    out.push(
      "Arguments:",
      ...table(
        positionals.map(([n, a]) => [n, a.description ?? ""] as const),
        width,
      ),
      "",
    );
  const own = Object.entries(args).filter(([n, a]) => a.type !== "positional" && !GLOBAL_NAMES.has(n));
  if (own.length)
    out.push(
      "Options:",
      ...table(
        own.map(([n, a]) => [flagLabel(n, a), a.description ?? ""] as const),
        width,
      ),
      "",
    );
  if (Object.keys(args).some((n) => GLOBAL_NAMES.has(n)) || path.length === 0)
    out.push(
      "Global options (anywhere on the line):",
      ...table(
        Object.entries(GLOBAL_ARGS).map(([n, a]) => [flagLabel(n, a), a.description] as const),
        width,
      ),
      "",
    );

  const examples = text.examples?.length ? text.examples : subs ? [] : [defaultExample(name, positionals)];
  if (examples.length) out.push("Examples:", ...examples.map((e) => wrap(e, width, "      ", "  ")), "");
  if (subs)
    out.push(wrap(`Run \`${name} <command> --help\` (or \`indx help ${[...path, "<command>"].join(" ")}\`) for a command's options and examples.`, width));
  return out.join("\n").trimEnd();
}

/** A command list shows what each command is, in its description's first sentence. */
export function firstSentence(text: string): string {
  const [first = text] = text.split(/(?<=\.)\s/);
  return first.replace(/\.$/, "");
}

function flagLabel(name: string, a: ArgDef): string {
  const alias = "alias" in a && a.alias ? `-${[a.alias].flat()[0]}, ` : "";
  if (a.type === "boolean") return `${alias}--${name}`;
  return `${alias}--${name} <${("valueHint" in a && a.valueHint) || "value"}>`;
}

/** Two columns: names left, descriptions wrapped beside them; a name too wide gets its description on the next line. */
function table(rows: readonly (readonly [string, string])[], width: number): string[] {
  const nameWidth = Math.min(Math.max(...rows.map(([n]) => n.length)), Math.floor(width / 3));
  const indent = " ".repeat(nameWidth + 4);
  const lines: string[] = [];
  for (const [n, desc] of rows) {
    const first = `  ${n.padEnd(nameWidth)}  `;
    if (n.length > nameWidth) {
      lines.push(`  ${n}`);
      if (desc) lines.push(wrap(desc, width, indent, indent));
    } else lines.push(wrap(desc, width, indent, first));
  }
  return lines;
}

/** A command without hand-written examples (an operation added later) still shows how it is called. */
function defaultExample(name: string, positionals: [string, ArgDef][]): string {
  return [name, ...positionals.map(([n]) => (n === "path" ? '"Projects/Apollo Launch.md"' : `<${n}>`))].join(" ");
}
