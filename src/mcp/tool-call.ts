import { type CallToolResult, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { TObject } from "@sinclair/typebox";
import type { AiStreamSink } from "../ai/stream.ts";
import type { App } from "../app/context.ts";
import { OPERATION_BY_NAME } from "../app/registry.ts";
import { IndxError, toIndxError } from "../core/errors.ts";
import type { Caller } from "../ops/context.ts";
import type { Operation, Scope } from "../ops/define.ts";
import type { Grant } from "../ops/grant.ts";
import { hasScope, invokeOp } from "../ops/invoke.ts";
import { resultText } from "./content.ts";
import { RpcError } from "./errors.ts";
import type { McpHub } from "./hub.ts";
import type { Log } from "./logging.ts";
import { ReplayCache } from "./replay.ts";

/** What a tools/call needs from its transport: who calls, and where progress goes. */
export interface CallEnv {
  app: App;
  scopes: ReadonlySet<Scope>;
  /** The surface and the token's id, for the ai.invocation event. */
  caller?: Caller;
  /** The token's folder grant (docs/permissions.md); none: the whole vault. */
  grant?: Grant | null;
  /** Sends one notifications/progress; absent when the caller passed no progressToken. */
  progress?: (done: number, total?: number, message?: string) => Promise<void>;
  /** Aborted when the client cancels the call: long work (an index pass, a rerank) stops early. */
  signal?: AbortSignal;
  /** The session's log: one tool_call event per call (name, outcome, duration; never the arguments). */
  log?: Log;
}

/**
 * An error as a tool result (docs/mcp.md, Tools): isError with the JSON {code, message, details} in
 * the text. No structuredContent: the SDK client validates any structuredContent against the
 * tool's outputSchema, even on an error, and an error body never matches an output schema.
 */
function errorResult(e: IndxError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(e.toJSON()) }] };
}

type Outcome = { result: CallToolResult; error?: undefined } | { result?: undefined; error: IndxError };

/** Progress is throttled to about one notification per percent (and always the last one). */
function throttledProgress(send: NonNullable<CallEnv["progress"]>) {
  let lastPct = -1;
  let lastDone = -1;
  let last: Promise<void> = Promise.resolve();
  let sent = false;
  return {
    fn(done: number, total: number) {
      // Progress must increase with every notification (MCP spec).
      const pct = total > 0 ? Math.floor((done / total) * 100) : 0;
      if (done <= lastDone || (pct === lastPct && done !== total)) return;
      lastPct = pct;
      lastDone = done;
      sent = true;
      last = send(done, total).catch(() => {});
    },
    /**
     * Waits for the last notification, then lets a little time pass: over stdio the SDK client
     * drops progress that arrives in the same chunk as the result (typescript-sdk#2580).
     */
    async settle() {
      if (!sent) return;
      await last;
      await new Promise((r) => setTimeout(r, 15));
    },
  };
}

/**
 * An AI call's stream as progress notifications (docs/mcp.md, Tools): each event is one
 * notification whose message is the event's JSON; progress counts events, so it always increases.
 */
function aiProgress(send: NonNullable<CallEnv["progress"]>): AiStreamSink {
  let n = 0;
  return (event) => {
    send(++n, undefined, JSON.stringify(event)).catch(() => {});
  };
}

/**
 * tools/call: every call goes through invoke() (scopes, validation, run); nothing else here. An
 * unknown tool name is a malformed request (JSON-RPC Invalid params), not a failed call.
 */
export async function callTool(hub: McpHub, name: string, args: unknown, env: CallEnv): Promise<CallToolResult> {
  const op = OPERATION_BY_NAME.get(name);
  if (!op) {
    const shown = name.slice(0, 100);
    const e = new IndxError("not_found", `Unknown tool: ${shown}. Call tools/list for the catalogue.`, { tool: shown });
    throw new RpcError(ErrorCode.InvalidParams, e.message, e.toJSON());
  }
  const started = performance.now();
  const outcome = await run(hub, op, args, env);
  const ms = Math.round(performance.now() - started);
  if (outcome.error) {
    env.log?.("warning", { event: "tool_call", tool: op.name, ms, code: outcome.error.code });
    return errorResult(outcome.error);
  }
  env.log?.("debug", { event: "tool_call", tool: op.name, ms });
  return outcome.result;
}

async function run<I extends TObject, O extends TObject>(hub: McpHub, op: Operation<I, O>, args: unknown, env: CallEnv): Promise<Outcome> {
  // A dry run of a write needs only vault:read, as over REST (docs/contracts.md): invokeOp checks the scope the input needs.
  if (!op.dryRunNeedsRead && !hasScope(env.scopes, op.scope))
    return { error: new IndxError("forbidden", `${op.name} needs the ${op.scope} scope`, { operation: op.name, needed: op.scope }) };
  // AI results have their own cache, which also records each call and streams; the replay cache stays out of their way.
  // Replays are per grant: what one token may see is never replayed to another.
  const key = op.safe && !op.ai ? `${env.grant?.key ?? ""}\n${ReplayCache.key(op.name, args)}` : null;
  if (key) hub.syncWithLog();
  const replay = key ? hub.replays.get(key) : undefined;
  if (replay) return { result: replay };
  await hub.ready;
  const generation = hub.generation;
  const progress = env.progress ? throttledProgress(env.progress) : null;
  const ctx = env.app.forCall({
    scopes: env.scopes,
    caller: env.caller,
    grant: env.grant ?? null,
    signal: env.signal,
    progress: progress?.fn,
    aiStream: env.progress && op.ai ? aiProgress(env.progress) : undefined,
  });
  try {
    // Reads run on the reader pool where the server has one: a costly base query holds a reader, not this thread.
    const raw = args ?? {};
    const { input, result: output } = hub.readers ? await hub.readers.invoke(op, ctx, raw) : await invokeOp(op, ctx, raw);
    await progress?.settle();
    const result: CallToolResult = {
      content: [{ type: "text", text: resultText(op, output, input) }],
      structuredContent: output,
    };
    // A result computed while the index changed underneath is not kept for replays; a call with
    // side effects (a write, a config change) makes every earlier replay stale.
    if (key && generation === hub.generation) hub.replays.set(key, result);
    if (!op.safe) hub.invalidate();
    return { result };
  } catch (err) {
    await progress?.settle();
    return { error: toIndxError(err) };
  }
}
