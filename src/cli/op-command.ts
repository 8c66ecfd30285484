import { readFileSync, writeFileSync } from "node:fs";
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { ArgsDef } from "citty";
import type { App } from "../app/context.ts";
import { IndxError } from "../core/errors.ts";
import type { Operation } from "../ops/define.ts";
import { invokeOp } from "../ops/invoke.ts";
import { enumValues, oneOf } from "../ops/schema-words.ts";
import { command } from "./command.ts";
import { openContext } from "./context.ts";
import { outputFields, requestedFields, selectFields } from "./fields.ts";
import { CLI_FLAG_HELP } from "./flag-help.ts";
import { HELP_TEXT } from "./help.ts";
import { print, printErr, stdoutIsTTY, write } from "./io.ts";
import { splitLineSuffix } from "./note-path.ts";
import { chooseFormat, colorOn, keyValueLines, listingOf, NO_RESULTS, render, type Style, styleFor } from "./output.ts";
import { allPagesFormat, cutNotice, nextCursorOf, withoutHeader } from "./pages.ts";
import { refreshAnswer, refreshIndex } from "./refresh.ts";

/** How one operation appears on the command line; `In` and `Out` are its input and output types. */
export interface CliSpec<In = unknown, Out = unknown> {
  /** Input fields taken from positional arguments, in order. */
  positionals?: string[];
  /** The last positional swallows the remaining words (search queries), or all remaining arguments when it is a list. */
  rest?: boolean;
  /** The exit code a result gives (e.g. 3 when note_exists is false); 0 when absent. */
  exitCode?: (output: Out) => number;
  /**
   * The output for a person at a terminal, given colour helpers and the operation's one-line
   * summary (writes show it above their diff). Without it, `key: value` lines.
   */
  human?: (output: Out, style: Style, summary: string, input: In) => string;
  /** The rows of --format csv|md|ndjson|files, when the output's own list is not them. */
  table?: (output: Out) => Record<string, unknown>[];
  /** This text field is read from standard input when it is not given and stdin is piped. */
  stdin?: string;
  /** Fields taken as JSON (`--ops '[…]'`, `--ops @ops.json`, `--ops -` for stdin). */
  json?: string[];
  /** Worked examples shown at the end of --help. */
  examples?: string[];
  /** Replacing an existing file needs --yes (or --if-match): a typo must not clobber a note. */
  confirmReplace?: { path: keyof In & string; exists: (ctx: App, path: string) => boolean };
  /**
   * A write across many files: without --yes or --plan-etag it only plans (a dry run) and says
   * how to apply, as a replace without --yes is refused (docs/decisions.md, "Vault-wide writes plan first").
   */
  planFirst?: boolean;
  /** Flags that are not input fields (`--scope-glob`), and the input they make: it fills fields the generic flags left unset. */
  flags?: { args: ArgsDef; toInput: (flags: Record<string, unknown>, rawArgs: string[]) => Partial<In> };
  /** `--raw`: the input it implies (given the input asked for so far), and the exact text it prints instead of any format. */
  raw?: { input: (asked: Record<string, unknown>) => Partial<In>; text: (output: Out) => string };
  /** The path may end in a line range, `:12` or `:12-40`, that fills `from` and `lines` (note get). */
  lineSuffix?: boolean;
  /** `--output FILE`: the input it implies, and the bytes written to FILE (stdout gets the result without them). */
  saveTo?: { input: Partial<In>; bytes: (output: Out) => Uint8Array; strip: (output: Out) => unknown };
}

const kebab = (s: string) => s.replaceAll("_", "-");

/** Repeated flags (`--tag a --tag b`) and comma lists both give arrays; citty keeps only the last. */
export function allFlagValues(rawArgs: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i] ?? "";
    const next = rawArgs[i + 1];
    if (a === `--${name}` && next !== undefined) {
      out.push(next);
      i++;
    } else if (a.startsWith(`--${name}=`)) out.push(a.slice(name.length + 3));
  }
  return out
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** Builds the citty command of an operation: flags from its schema, the op's description as help. */
export function opCommand<I extends TObject, O extends TObject>(op: Operation<I, O>, spec: CliSpec<Static<I>, Static<O>> = {}) {
  const props: Record<string, TSchema> = op.input.properties;
  const required = new Set(op.input.required ?? []);
  const args: ArgsDef = {};
  for (const name of spec.positionals ?? []) {
    const s = props[name];
    // A positional read from stdin when piped (note capture's text) may be left out.
    args[name] = { type: "positional", description: s?.description ?? CLI_FLAG_HELP[name] ?? name, required: required.has(name) && spec.stdin !== name };
  }
  /** A custom flag named like a field takes that field over (`ai toc --write PATH` builds the write object). */
  const custom = (name: string) => spec.flags !== undefined && kebab(name) in spec.flags.args;
  for (const [name, schema] of Object.entries(props)) {
    if (spec.positionals?.includes(name) || custom(name)) continue;
    const desc = schema.description ?? CLI_FLAG_HELP[name] ?? "";
    if (spec.json?.includes(name)) {
      args[kebab(name)] = { type: "string", description: `${desc} (JSON; @file reads a file, - reads stdin)`, valueHint: "json" };
    } else if (spec.stdin === name) {
      args[kebab(name)] = { type: "string", description: `${desc} (read from stdin when piped)` };
      args[`${kebab(name)}-file`] = { type: "string", description: `Read ${name} from this file.`, valueHint: "file" };
    } else if (name === "frontmatter") {
      args.fm = { type: "string", description: "Frontmatter condition key=value (repeatable).", valueHint: "key=value" };
    } else if (schema.type === "boolean") {
      args[kebab(name)] = { type: "boolean", description: desc };
    } else {
      const values = enumValues(schema);
      const range = schema.type === "integer" && schema.maximum !== undefined ? ` From ${schema.minimum ?? 0} to ${schema.maximum}.` : "";
      const def = schema.default !== undefined && !Array.isArray(schema.default) ? ` Default: ${schema.default}.` : "";
      args[kebab(name)] = {
        ...(name === "limit" ? { alias: "n" } : {}),
        type: "string",
        description: `${desc}${takesList(schema) ? " (repeatable or comma-separated)" : ""}${values.length ? ` One of ${oneOf(values)}.` : ""}${range}${def}`,
        valueHint: values.length && values.join("|").length <= 30 ? values.join("|") : hintFor(schema),
      };
    }
  }
  Object.assign(args, spec.flags?.args);
  if (spec.raw) args.raw = { type: "boolean", description: "Print the file's text exactly as it is on disk, nothing else." };
  if (spec.saveTo) args.output = { type: "string", description: "Write the file's bytes to this file.", valueHint: "file" };
  const paged = "cursor" in props && "next_cursor" in op.output.properties;
  if (paged) args.all = { type: "boolean", description: "Every page, each printed as it comes (rows as NDJSON unless --format csv|md|files, or a terminal)." };
  if (spec.confirmReplace) args.yes = { type: "boolean", alias: "y", description: "Replace an existing note without --if-match." };
  if (spec.planFirst) args.yes = { type: "boolean", alias: "y", description: "Apply without a plan first (else: a dry run, then --plan-etag or --yes)." };
  if (op.safe || op.ai)
    args.refresh = {
      type: "boolean",
      default: true,
      description:
        "Before answering, index the files added, deleted or renamed on disk, and the answer's notes that changed (--no-refresh answers from the index as last built).",
    };

  const cmd = command({
    description: op.title,
    args,
    runs: op,
    examples: spec.examples ?? [],
    async run(flags, rawArgs) {
      const input: Record<string, unknown> = {};
      const positionals = (flags._ ?? []).map(String);
      const expected = spec.positionals?.length ?? 0;
      if (!spec.rest && positionals.length > expected)
        throw new IndxError(
          "validation_failed",
          `Unexpected argument #${expected + 1}: this command takes ${expected === 0 ? "no arguments" : `${expected} (${(spec.positionals ?? []).join(", ")})`}. Quote paths with spaces; see --help.`,
          {
            argument: expected + 1,
          },
        );
      (spec.positionals ?? []).forEach((name, i, all) => {
        const last = i === all.length - 1;
        // The last positional takes the remaining words: as a list (note get-many's paths) or as one text (a search query).
        if (spec.rest && last && props[name]?.type === "array") {
          if (positionals.length > i) input[name] = positionals.slice(i);
          return;
        }
        const value = spec.rest && last ? positionals.slice(i).join(" ") : positionals[i];
        if (value !== undefined && value !== "") input[name] = value;
        else if (spec.stdin === name && process.stdin.isTTY !== true) input[name] = readFileSync(0, "utf8");
      });
      for (const [name, schema] of Object.entries(props)) {
        if (spec.positionals?.includes(name) || custom(name)) continue;
        const flag = kebab(name);
        if (spec.json?.includes(name)) {
          const text = flags[flag];
          if (typeof text === "string" && text !== "") input[name] = parseJsonFlag(flag, text);
          continue;
        }
        if (spec.stdin === name) {
          const text = textFlag(flags, flag);
          if (text !== undefined) input[name] = text;
          continue;
        }
        if (name === "frontmatter") {
          const conds = allFlagValues(rawArgs, "fm");
          if (conds.length) {
            const fm: Record<string, string> = {};
            for (const c of conds) {
              const eq = c.indexOf("=");
              if (eq <= 0) throw new IndxError("validation_failed", "--fm takes key=value.", { option: "--fm" });
              fm[c.slice(0, eq)] = c.slice(eq + 1);
            }
            input.frontmatter = fm;
          }
          continue;
        }
        if (takesList(schema)) {
          const values = allFlagValues(rawArgs, flag);
          if (values.length) input[name] = values;
        } else if (flags[flag] !== undefined && flags[flag] !== "") {
          input[name] = flags[flag];
        }
      }
      for (const [name, value] of Object.entries(spec.flags?.toInput(flags, rawArgs) ?? {})) if (input[name] === undefined) input[name] = value;
      // --all pages through everything: the largest page the operation takes, unless one was asked for.
      if (paged && flags.all === true && input.limit === undefined && typeof props.limit?.maximum === "number") input.limit = props.limit.maximum;
      const outputFile = typeof flags.output === "string" && flags.output !== "" ? flags.output : null;
      if (spec.saveTo && outputFile) Object.assign(input, spec.saveTo.input);
      const ctx = openContext(flags);
      try {
        const refresh = (op.safe || op.ai) && flags.refresh !== false && !rawArgs.includes("--no-refresh");
        if (refresh) await refreshIndex(ctx);
        if (spec.lineSuffix && typeof input.path === "string") takeLineSuffix(ctx, input);
        if (spec.raw && flags.raw) Object.assign(input, spec.raw.input(input));
        const guard = spec.confirmReplace;
        if (guard && !flags.yes && input.if_match === undefined && input.if_not_exists !== true && input.dry_run !== true) {
          const target = input[guard.path];
          if (typeof target === "string" && guard.exists(ctx, target))
            throw new IndxError("already_exists", `${target} exists: pass --yes to replace it, or --if-match <etag> to replace only the version you read.`, {
              path: target,
            });
        }
        const planOnly = spec.planFirst === true && !flags.yes && input.plan_etag === undefined && input.dry_run !== true;
        if (planOnly) input.dry_run = true;
        // --stream: each AI event as an NDJSON line as it happens, ending with ai.complete (docs/contracts.md, AI runtime).
        const streaming = op.ai !== undefined && input.stream === true;
        const call = streaming ? ctx.forCall({ aiStream: (event) => print(JSON.stringify(event)) }) : ctx;
        const run = () =>
          invokeOp(op, call, input, { coerce: true }).catch((err: unknown) => {
            throw inFlagWords(err, spec.positionals ?? []);
          });
        let invoked = await run();
        // A note of the answer edited in place since it was indexed: indexed again, and asked again
        // (an AI answer is not asked twice: it costs a model call).
        if (refresh && !op.ai && (await refreshAnswer(ctx, invoked.result))) invoked = await run();
        const { input: parsedInput, result: output } = invoked;
        if (streaming) {
          print(JSON.stringify({ type: "ai.complete", data: output }));
          return;
        }
        if (spec.raw && flags.raw) return write(spec.raw.text(output));
        const shown = spec.saveTo && outputFile ? spec.saveTo.strip(output) : output;
        if (spec.saveTo && outputFile) writeFileSync(outputFile, spec.saveTo.bytes(output));
        const chosen = chooseFormat(flags, stdoutIsTTY());
        const all = paged && flags.all === true;
        const format = all ? allPagesFormat(chosen, flags.format !== undefined || flags.json !== undefined) : chosen;
        const style = styleFor(colorOn());
        const human = spec.human;
        const table = spec.table;
        const fields = requestedFields();
        const listing = op.safe && !op.ai ? listingOf(op.output) : null;
        const show = (page: Static<O>, first: boolean) => {
          const data = fields ? selectFields(page, fields, outputFields(op)) : page;
          const list = listing ? (page as Record<string, unknown>)[listing.field] : undefined;
          const empty = Array.isArray(list) && list.length === 0;
          const columns = fields ?? (table && empty ? tableColumns(page) : listing?.columns);
          const text = render(
            data,
            format,
            () => (empty ? emptyListText(page, style) : human ? human(page, style, op.summary(page, parsedInput), parsedInput) : keyValueLines(page)),
            table && (() => table(page)),
            columns,
          );
          print(first ? text : withoutHeader(text, format));
        };
        show(shown as Static<O>, true);
        // --all: the next pages, each printed as it comes, with the input of the first.
        for (let cursor = all ? nextCursorOf(output) : null; cursor !== null; ) {
          const next = (await invokeOp(op, ctx, { ...input, cursor }, { coerce: true })).result;
          show(next, false);
          cursor = nextCursorOf(next);
        }
        if (planOnly)
          printErr(
            `Nothing written: this is the plan. Apply it with --plan-etag ${String((output as { plan_etag?: unknown }).plan_etag)} (refused if a planned note changed), or with --yes.`,
          );
        const notice = all ? null : cutNotice(output, format);
        if (notice) printErr(notice);
        const code = spec.exitCode?.(output) ?? 0;
        if (code) process.exitCode = code;
      } finally {
        ctx.close();
      }
    },
  });
  HELP_TEXT.set(cmd, { long: op.description, examples: spec.examples });
  return cmd;
}

/** A list field, or one that takes a single value or a list (`rel`): repeated flags and commas give a list. */
function takesList(schema: TSchema): boolean {
  return schema.type === "array" || (Array.isArray(schema.anyOf) && schema.anyOf.some((s: TSchema) => s.type === "array"));
}

/** `note get Note.md:12-40`: the path loses its suffix, which becomes from/lines. */
function takeLineSuffix(ctx: App, input: Record<string, unknown>): void {
  const { path, from, lines } = splitLineSuffix(ctx, String(input.path));
  if (from === undefined) return;
  if (input.from !== undefined || input.lines !== undefined)
    throw new IndxError("validation_failed", "Give the line range either as <path>:N-M or with --from/--lines, not both.", { field: "path" });
  Object.assign(input, { path, from, ...(lines === undefined ? {} : { lines }) });
}

function hintFor(schema: TSchema): string {
  if (schema.type === "integer" || schema.type === "number") return "n";
  if (takesList(schema)) return "list";
  return "value";
}

/** A validation error about input fields, said with the flags and arguments a person typed: `--mode must be …`. */
function inFlagWords(err: unknown, positionals: readonly string[]): unknown {
  if (!(err instanceof IndxError) || err.code !== "validation_failed") return err;
  const errors = err.details?.errors as { field?: string; expected?: string }[] | undefined;
  const named = (errors ?? []).flatMap(({ field, expected }) => (field && expected ? [{ field, expected }] : []));
  if (!errors?.length || named.length < errors.length) return err;
  const flagOf = (top: string) => (positionals.includes(top) ? `<${top}>` : top === "frontmatter" ? "--fm" : `--${kebab(top)}`);
  // The flag, then where inside its JSON value: `--ops[0].op`, `--canvas: nodes[2].text`, each rule said once.
  const name = (field: string) => {
    const [top = field, ...rest] = field.split(".");
    const inner = rest.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join("");
    return `${flagOf(top)}${inner}`;
  };
  const lines = [...new Set(named.map((e) => `${name(e.field)} ${e.expected}`))];
  return new IndxError("validation_failed", lines.join("; "), err.details);
}

/** A JSON flag: inline JSON, @file, or - for stdin. Errors name the flag, never the content. */
/** A JSON flag's value: inline JSON, @file, or - for stdin; validation_failed naming the flag otherwise. */
export function parseJsonFlag(flag: string, value: string): unknown {
  let text = value;
  try {
    if (value === "-") text = readFileSync(0, "utf8");
    else if (value.startsWith("@")) text = readFileSync(value.slice(1), "utf8");
  } catch {
    throw new IndxError("validation_failed", `--${flag}: the file could not be read.`, { option: `--${flag}` });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new IndxError("validation_failed", `--${flag} must be valid JSON.`, { option: `--${flag}` });
  }
}

/** A text field from --name, --name-file, or piped stdin. */
function textFlag(flags: Record<string, unknown>, flag: string): string | undefined {
  const inline = flags[flag];
  if (typeof inline === "string") return inline;
  const file = flags[`${flag}-file`];
  try {
    if (typeof file === "string" && file !== "") return readFileSync(file === "-" ? 0 : file, "utf8");
    if (process.stdin.isTTY !== true) return readFileSync(0, "utf8");
  } catch {
    throw new IndxError("validation_failed", `--${flag}-file: the file could not be read.`, { option: `--${flag}-file` });
  }
  return undefined;
}

/** An empty list on a terminal: its warnings, then the one sentence every command prints. */
function emptyListText(output: unknown, style: Style): string {
  const warnings = (output as { warnings?: { message: string }[] }).warnings ?? [];
  return [...warnings.map((w) => style.dim(`warning: ${w.message}`)), NO_RESULTS].join("\n");
}

/** The columns a table view (a base) names even when it has no rows. */
function tableColumns(output: unknown): string[] | undefined {
  const columns = (output as { columns?: unknown }).columns;
  return Array.isArray(columns) ? columns.flatMap((c) => (c && typeof c === "object" && "name" in c ? [String(c.name)] : [])) : undefined;
}
