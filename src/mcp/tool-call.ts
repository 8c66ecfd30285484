import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Static, TObject } from "@sinclair/typebox";
import { IndxError, toIndxError } from "../core/errors.ts";
import type { OpContext } from "../ops/context.ts";
import type { Operation } from "../ops/define.ts";
import { hasScope, invokeOp } from "../ops/invoke.ts";
import { OPERATION_BY_NAME } from "../ops/registry.ts";
import type { McpHub } from "./hub.ts";
import { ReplayCache } from "./replay.ts";

/** What a tools/call needs from its transport: who calls, and where progress goes. */
export interface CallEnv {
  ctx: OpContext;
  /** Sends one notifications/progress; absent when the caller passed no progressToken. */
  progress?: (done: number, total: number) => Promise<void>;
}

/**
 * An error as a tool result (docs/mcp.md, Tools): isError with the JSON {code, message, details} in
 * the text. No structuredContent: the SDK client validates any structuredContent against the
 * tool's outputSchema, even on an error, and an error body never matches an output schema.
 */
export function errorResult(err: unknown): CallToolResult {
  const e = toIndxError(err);
  return { isError: true, content: [{ type: "text", text: JSON.stringify(e.toJSON()) }] };
}

function summaryOf<I extends TObject, O extends TObject>(op: Operation<I, O>, output: Static<O>, input: Static<I>): string {
  try {
    return op.summary(output, input);
  } catch {
    return `${op.name} succeeded`;
  }
}

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

/** tools/call: every call goes through invoke() (scopes, validation, run); nothing else here. */
export async function callTool(hub: McpHub, name: string, args: unknown, env: CallEnv): Promise<CallToolResult> {
  const op = OPERATION_BY_NAME.get(name);
  if (!op) {
    const shown = name.slice(0, 100);
    return errorResult(new IndxError("not_found", `No tool named ${shown}. Call tools/list for the catalogue.`, { tool: shown }));
  }
  if (!hasScope(env.ctx.scopes, op.scope))
    return errorResult(new IndxError("forbidden", `${op.name} needs the ${op.scope} scope`, { operation: op.name, needed: op.scope }));
  const key = op.safe ? ReplayCache.key(op.name, args) : null;
  const replay = key ? hub.replays.get(key) : undefined;
  if (replay) return replay;
  await hub.ready;
  const generation = hub.generation;
  const progress = env.progress ? throttledProgress(env.progress) : null;
  if (progress) env.ctx.progress = progress.fn;
  try {
    const { input, result: output } = await invokeOp(op, env.ctx, args ?? {});
    await progress?.settle();
    const result: CallToolResult = {
      content: [{ type: "text", text: summaryOf(op, output, input) }],
      structuredContent: output,
    };
    // A result computed while the index changed underneath is not kept for replays; a call with
    // side effects (a write, a config change) makes every earlier replay stale.
    if (key && generation === hub.generation) hub.replays.set(key, result);
    if (!op.safe) hub.invalidate();
    return result;
  } catch (err) {
    await progress?.settle();
    return errorResult(err);
  }
}
