import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Static, TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { CommandDef, Resolvable } from "citty";
import { OPERATION_BY_NAME } from "../../src/app/registry.ts";
import { COMMAND_OPS } from "../../src/cli/command.ts";
import { root } from "../../src/cli/root.ts";
import { IndxError } from "../../src/core/errors.ts";
import { decodePath } from "../../src/http/request.ts";
import { matchRoute } from "../../src/http/routes.ts";
import type { OpContext } from "../../src/ops/context.ts";
import type { AnyOperation, Operation } from "../../src/ops/define.ts";
import { invokeOp as invokeUnchecked } from "../../src/ops/invoke.ts";

/**
 * Every operation result a test sees goes through here: it must match the operation's output
 * schema, which is what MCP clients validate against and what OpenAPI documents. Properties the
 * schema does not name count as drift too, so a new field cannot slip past the documentation.
 */
export function assertOutput(op: AnyOperation, output: unknown, via: string): void {
  const problems: string[] = [];
  for (const e of Value.Errors(op.output, output)) {
    problems.push(`${e.path || "/"}: ${e.message}, got ${shown(e.value)}`);
    if (problems.length === 10) break;
  }
  if (problems.length === 0) problems.push(...undeclared(op.output, output));
  if (problems.length) throw new Error(`${op.name} via ${via}: the output does not match its output schema\n  ${problems.join("\n  ")}`);
}

/** invokeOp, and the result checked against the operation's output schema. */
export async function invokeOp<I extends TObject, O extends TObject>(op: Operation<I, O>, ctx: OpContext, raw: unknown, opts: { coerce?: boolean } = {}) {
  const done = await invokeUnchecked(op, ctx, raw, opts);
  assertOutput(op, done.result, "invoke");
  return done;
}

/** invoke, and the result checked against the operation's output schema. */
export async function invoke<I extends TObject, O extends TObject>(
  op: Operation<I, O>,
  ctx: OpContext,
  raw: unknown,
  opts: { coerce?: boolean } = {},
): Promise<Static<O>> {
  return (await invokeOp(op, ctx, raw, opts)).result;
}

/** A successful REST answer (`{ ok: true, data }`) must carry the output of the route's operation. */
export function assertRestOutput(method: string, url: string, body: unknown): void {
  if (!isObject(body) || body.ok !== true) return;
  const match = matchRoute(method, decodePath(new URL(url, "http://indx").pathname));
  if (match) assertOutput(match.route.op, body.data, `${method} ${match.route.prefix}`);
}

/** The MCP SDK's own client, checking every successful tool result against the tool's operation. */
export class CheckedClient extends Client {
  override async callTool(...args: Parameters<Client["callTool"]>) {
    const result = await super.callTool(...args);
    const op = OPERATION_BY_NAME.get(args[0].name);
    if (op && result.isError !== true) assertOutput(op, result.structuredContent, "MCP");
    return result;
  }
}

/** Every command of the CLI by its words (`note get`), with the operation it runs; commands that run none are left out. */
export async function commandOps(cmd: CommandDef = root, words: string[] = []): Promise<Map<string, AnyOperation>> {
  const found = new Map<string, AnyOperation>();
  const op = COMMAND_OPS.get(cmd);
  if (op) found.set(words.join(" "), op);
  const subs = cmd.subCommands ? await resolve(cmd.subCommands) : {};
  for (const [word, sub] of Object.entries(subs)) for (const [k, v] of await commandOps(await resolve(sub), [...words, word])) found.set(k, v);
  return found;
}

/**
 * The JSON a CLI command printed must be its operation's output. `commands` comes from
 * commandOps(); output in another format (ndjson, csv, …) is not checked.
 */
export function assertCliOutput(commands: Map<string, AnyOperation>, argv: string[], stdout: string): void {
  const words = argv.filter((a) => !a.startsWith("-"));
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const op = commands.get(words.slice(0, n).join(" "));
    if (!op) continue;
    if (!argv.some((a) => a.startsWith("--format"))) assertOutput(op, JSON.parse(stdout), `indx ${words.slice(0, n).join(" ")}`);
    return;
  }
}

async function resolve<T>(value: Resolvable<T>): Promise<T> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

/** The paths of properties an output has but its schema does not declare. */
function undeclared(schema: TObject, output: unknown): string[] {
  const cleaned = Value.Clean(schema, Value.Clone(output));
  const extra: string[] = [];
  const walk = (full: unknown, kept: unknown, path: string) => {
    if (!isObject(full) || !isObject(kept)) return;
    for (const key of Object.keys(full)) {
      if (!(key in kept)) extra.push(`${path}/${key}: not in the schema`);
      else walk(full[key], kept[key], `${path}/${key}`);
    }
  };
  walk(output, cleaned, "");
  return extra.slice(0, 10);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

const shown = (v: unknown) => (JSON.stringify(v) ?? String(v)).slice(0, 80);

/** The IndxError a call fails with; a call that succeeds, or fails otherwise, fails the test. */
export async function rejection(p: Promise<unknown>): Promise<IndxError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof IndxError) return err;
    throw err;
  }
  throw new Error("expected the call to fail");
}

/** Warnings as `code path` lines, for comparing a result's warnings at a glance. */
export const warningCodes = (warnings: { code: string; path?: string }[]) => warnings.map((w) => `${w.code} ${w.path ?? ""}`.trim());
