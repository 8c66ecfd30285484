import { IndxError, toIndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import type { OpContext } from "../ops/context.ts";
import type { Warning } from "../ops/schemas.ts";
import type { AiUsage } from "../providers/types.ts";
import { cacheKey } from "./cache.ts";
import { etagOnDisk } from "./citations.ts";
import { ModelSession, ZERO_USAGE } from "./session.ts";

/** What every AI operation returns besides its own fields. */
export interface AiOutcome {
  usage: AiUsage;
  warnings: Warning[];
}

/**
 * Fields of an input that never change what the model suggests: they stay out of the cache key,
 * so a suggestion, its dry run and its apply share one cached generation.
 */
const CONTROL_FIELDS = new Set(["idempotency_key", "cache", "stream", "cache_ttl_seconds", "apply", "apply_mode", "if_match", "if_match_mode", "dry_run"]);

/**
 * `Op` is the operation's short name (the cache key's and the ai.invocation event's `op`). The
 * names are derived from the catalogue above this folder (AiOpName in src/ai/ops/catalogue.ts),
 * which callers check with `satisfies AiOpName`: the runtime stays below the operations.
 */
export interface AiCall<T extends AiOutcome, Op extends string = string> {
  op: Op;
  ctx: OpContext;
  /** The caller's input, as validated. */
  input: Record<string, unknown> & { cache?: boolean; cache_ttl_seconds?: number; max_tokens?: number; seed?: number };
  /** The notes the call reads, each at the version it reads: the cache key's content fingerprint. */
  scope: readonly { path: string; etag: string }[];
  /** Names the prompt and reply shapes, so a change to them never serves an old cached reply. */
  promptVersion: string;
  /** Whether producing the result may call the model (ai_toc of one note without descriptions does not). */
  usesModel: boolean;
  produce(session: ModelSession | null): Promise<T>;
  /**
   * Turns the suggestions into proposed patches or writes them. It runs after the cache on every
   * call, so an apply is never served from the cache; each path it writes goes into `written`,
   * which the call's ai.invocation event lists as applied_paths, even when a conflict ends it.
   */
  finish?(suggested: T, written: string[]): Promise<T>;
}

/**
 * Runs one AI operation (docs/contracts.md, AI runtime): the cache first (a hit costs nothing and
 * says so), the daily cost cap held around every model request (src/providers/meter.ts), and one `ai.invocation` event per
 * call, whatever its outcome — with paths, counts, usage and codes, never prompts or outputs.
 * The operation has already resolved its scope and checked that the model role exists.
 */
/** The model session of a call that declared `usesModel: true`: runAi opens one for it, so null here is a fault of indx. */
export function modelSession(session: ModelSession | null): ModelSession {
  if (session === null) throw new IndxError("internal", "An AI call that uses a model ran without a model session.");
  return session;
}

export async function runAi<T extends AiOutcome, Op extends string>(call: AiCall<T, Op>): Promise<T> {
  const { ctx } = call;
  const ai = ctx.ai;
  const settings = ai.settings();
  const chat = call.usesModel ? ai.chat() : null;
  const started = performance.now();
  const cacheable = settings.cache.enabled && call.input.cache !== false;
  const key = cacheKey({
    op: call.op,
    provider: chat?.provider ?? "none",
    model: chat?.model ?? "none",
    temperature: settings.temperature,
    seed: call.input.seed ?? 0,
    maxOutputTokens: Math.min(call.input.max_tokens ?? settings.maxOutputTokens, settings.maxOutputTokens),
    schema: call.promptVersion,
    input: Object.fromEntries(Object.entries(call.input).filter(([k]) => !CONTROL_FIELDS.has(k))),
    fingerprint: call.scope.map((n) => [n.path, n.etag] as [string, string]),
  });
  const written: string[] = [];
  const event = (fields: { ok: boolean; cacheHit: boolean; usage: AiUsage; code?: string }) =>
    ctx.events.emit({
      kind: "ai.invocation",
      source: "indx",
      op: call.op,
      count: call.scope.length,
      duration_ms: Math.round(performance.now() - started),
      ai: {
        provider: chat?.provider ?? "none",
        model: chat?.model ?? "none",
        usage: fields.usage,
        cache_hit: fields.cacheHit,
        ok: fields.ok,
        ...(fields.code ? { error_code: fields.code } : {}),
        ...(ctx.caller ? { surface: ctx.caller.surface, ...(ctx.caller.token_id ? { token_id: ctx.caller.token_id } : {}) } : {}),
        scope_paths: call.scope.slice(0, 50).map((n) => n.path),
        ...(call.finish ? { applied_paths: written.slice(0, 50) } : {}),
      },
    });

  const finish = async (suggested: T, cacheHit: boolean): Promise<T> => {
    try {
      const result = call.finish ? await call.finish(suggested, written) : suggested;
      event({ ok: true, cacheHit, usage: result.usage });
      return result;
    } catch (err) {
      const e = toIndxError(err);
      event({ ok: false, cacheHit, usage: suggested.usage, code: e.code });
      throw e;
    }
  };

  if (cacheable) {
    const hit = ai.cache.get<T>(key);
    if (hit) {
      const drifted = await driftedSince(ctx, call.scope);
      const result: T = {
        ...hit,
        usage: { ...ZERO_USAGE },
        warnings: [...hit.warnings.filter((w) => w.code !== "ai_cache_hit" && w.code !== "citation_drift"), CACHE_HIT, ...drifted],
      };
      ctx.aiStream?.({ type: "ai.usage", usage: result.usage });
      return finish(result, true);
    }
  }

  const session = chat
    ? new ModelSession(
        chat,
        settings,
        { max_tokens: call.input.max_tokens, seed: call.input.seed },
        {
          signal: ctx.signal,
          stream: ctx.aiStream,
          callerText: callerStrings(call.input),
        },
      )
    : null;
  let result: T;
  try {
    result = await call.produce(session);
    if (session) {
      result.usage = { ...session.usage };
      result.warnings = [...result.warnings, ...session.warnings];
    }
    // A result cut short by the cost cap is not what the call asks for: it is never cached.
    if (cacheable && !result.warnings.some((w) => w.code === "ai_quota_reached")) {
      // A cache that cannot be written must not cost the caller an answer already paid for.
      try {
        ai.cache.put(
          key,
          result,
          call.scope.map((n) => n.path),
          call.input.cache_ttl_seconds ?? settings.cache.ttlSeconds,
        );
      } catch (err) {
        debugLog("ai cache write failed", { op: call.op, error: err });
      }
    }
  } catch (err) {
    if (!(err instanceof IndxError)) debugLog("ai call failed", { op: call.op, error: err });
    const e = toIndxError(err);
    event({ ok: false, cacheHit: false, usage: session?.usage ?? { ...ZERO_USAGE }, code: e.code });
    throw e;
  }
  return finish(result, false);
}

/** Caller strings held at most: an input is bounded, this bounds the wall's masking work too. */
const MAX_CALLER_STRINGS = 200;

/** Every string of the caller's input (question, instructions, focus, schema descriptions), for the deny wall. */
function callerStrings(input: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (out.length >= MAX_CALLER_STRINGS || depth > 8) return;
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v && typeof v === "object") for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(input, 0);
  return out;
}

/**
 * The notes of a cached result that changed on disk since it was computed: a hit is keyed by the
 * versions the index knows, and an edit the watcher has not indexed yet leaves the key unchanged,
 * so the result's citations would name a version that is gone without a word (docs/contracts.md,
 * AI runtime: citation_drift).
 */
async function driftedSince(ctx: OpContext, scope: readonly { path: string; etag: string }[]): Promise<Warning[]> {
  const out: Warning[] = [];
  for (const note of scope.slice(0, 200)) {
    if ((await etagOnDisk(ctx, note.path)) === note.etag) continue;
    out.push({
      code: "citation_drift",
      path: note.path,
      message: `${note.path} changed since this cached result was computed; its citations name the earlier version.`,
    });
  }
  return out;
}

const CACHE_HIT: Warning = { code: "ai_cache_hit", message: "Served from the AI cache; usage reflects zero cost." };
