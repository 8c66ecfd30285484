import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { callOptions } from "./chat-result.ts";
import type { ChatSettings } from "./settings.ts";
import { type ChatProvider, type ChatRequest, type ChatResult, ProviderError, type ProviderErrorKind } from "./types.ts";

/**
 * AI_TEST_RECORD / AI_TEST_REPLAY (docs/decisions.md, AI fixtures): one JSON file per exchange,
 * named by the fingerprint of the request as the provider would see it. Recording calls the
 * provider and writes what it answered (or the failure it answered with); replaying never opens
 * a connection.
 */
interface Fixture {
  fingerprint: string;
  /** What was asked, for a reader of the fixture; replay matches on the fingerprint only. */
  request: Record<string, unknown>;
  result?: ChatResult;
  /** The text deltas, when the exchange streamed: replayed to onDelta in the same pieces. */
  deltas?: string[];
  error?: { kind: ProviderErrorKind; message: string; status?: number };
}

/** Failures of the environment, not answers of the provider: never recorded. */
const UNRECORDED: ReadonlySet<ProviderErrorKind> = new Set(["timeout", "unreachable", "replay_miss"]);

export function withRecordReplay(inner: ChatProvider, s: ChatSettings, mode: "record" | "replay", dir: string): ChatProvider {
  const describe = (req: ChatRequest) => {
    const o = callOptions(s, req);
    return {
      provider: inner.provider,
      model: inner.model,
      system: req.system,
      messages: req.messages,
      json_schema: req.jsonSchema ?? null,
      temperature: o.temperature,
      seed: o.seed,
      max_output_tokens: o.maxOutputTokens,
    };
  };
  const file = (fingerprint: string) => join(dir, `${fingerprint}.json`);

  const replay = async (req: ChatRequest): Promise<ChatResult> => {
    const fingerprint = fingerprintOf(describe(req));
    let fixture: Fixture;
    try {
      fixture = JSON.parse(readFileSync(file(fingerprint), "utf8")) as Fixture;
    } catch {
      throw new ProviderError("replay_miss", `AI_TEST_REPLAY: no recorded exchange for request ${fingerprint} (record it with AI_TEST_RECORD=1)`);
    }
    if (fixture.error) throw new ProviderError(fixture.error.kind, fixture.error.message, fixture.error.status);
    const result = fixture.result;
    if (!result) throw new ProviderError("bad_response", `AI_TEST_REPLAY: the exchange recorded for request ${fingerprint} has neither a result nor an error`);
    const deltas = fixture.deltas;
    if (req.onDelta) for (const d of deltas ?? [result.text]) req.onDelta(d);
    return { ...result, streamed: req.onDelta !== undefined && deltas !== undefined };
  };

  const record = async (req: ChatRequest): Promise<ChatResult> => {
    const request = describe(req);
    const fingerprint = fingerprintOf(request);
    const deltas: string[] = [];
    const onDelta = req.onDelta;
    const tapped: ChatRequest = onDelta
      ? {
          ...req,
          onDelta: (t) => {
            deltas.push(t);
            onDelta(t);
          },
        }
      : req;
    try {
      const result = await inner.generate(tapped);
      save(file(fingerprint), { fingerprint, request, result, ...(result.streamed ? { deltas } : {}) });
      return result;
    } catch (err) {
      if (err instanceof ProviderError && !UNRECORDED.has(err.kind))
        save(file(fingerprint), { fingerprint, request, error: { kind: err.kind, message: err.message, ...(err.status ? { status: err.status } : {}) } });
      throw err;
    }
  };

  return { provider: inner.provider, model: inner.model, generate: mode === "record" ? record : replay };
}

function save(path: string, fixture: Fixture): void {
  mkdirSync(join(path, ".."), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(fixture, null, 2)}\n`);
  renameSync(tmp, path);
}

/** sha256 of the request with its object keys sorted, so a schema's key order does not matter. */
function fingerprintOf(request: Record<string, unknown>): string {
  return new Bun.CryptoHasher("sha256").update(stableJson(request)).digest("hex").slice(0, 32);
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}
