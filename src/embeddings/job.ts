import { IndxError } from "../core/errors.ts";
import { logEvent } from "../core/log.ts";
import type { ProgressFn } from "../core/progress.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { costUsd } from "../providers/pricing.ts";
import type { EmbeddingsSettings } from "../providers/settings.ts";
import { estimateTokens } from "../providers/tokens.ts";
import { type EmbeddingProvider, ProviderError } from "../providers/types.ts";
import { REEMBED_FIX, type VectorStore } from "./store.ts";

/** Longest text sent for one chunk (chunks are ~2,000 chars; headings come first). */
const MAX_INPUT_CHARS = 8000;
const MAX_ATTEMPTS = 4;

export interface EmbedReport {
  provider: string;
  model: string;
  dimension: number | null;
  /** Distinct chunk contents in the index. */
  chunks: number;
  /** Already embedded before this run (unchanged or renamed chunks). */
  reused: number;
  embedded: number;
  /** Still without a vector after this run (failures, interruption). */
  pending: number;
  requests: number;
  retries: number;
  /** Vectors of chunks that no longer exist, removed. */
  pruned: number;
  batch_size: number;
  duration_ms: number;
  error: { code: string; message: string } | null;
}

export interface EmbedOptions {
  batchSize: number;
  concurrency: number;
  signal?: AbortSignal;
  onProgress?: ProgressFn;
  /** Remove vectors of chunks gone from the index (full passes only: a rename seen as
   *  delete-then-add across two watcher passes must still find its vector). */
  prune?: boolean;
  /** First retry delay; doubles each attempt (tests shorten it). */
  backoffMs?: number;
  /** Chunks only notes denied to every model have (src/providers/wall.ts): never embedded, their vectors dropped. */
  denied?: ReadonlySet<string>;
}

/** What a run with a paid model is expected to cost, before it starts. */
export interface EmbedEstimate {
  provider: string;
  model: string;
  /** Chunks to embed. */
  chunks: number;
  /** Their estimated input tokens (high: src/providers/tokens.ts). */
  tokens: number;
  usd: number;
}

/** The chunks a run would embed now and what they are expected to cost at the model's price. */
export function estimateRun(index: IndexStore, vectors: VectorStore, s: EmbeddingsSettings, denied: ReadonlySet<string>): EmbedEstimate {
  const have = vectors.hashes();
  const pending = [...index.chunks.distinctHashes()].filter((h) => !have.has(h) && !denied.has(h));
  let tokens = 0;
  for (let i = 0; i < pending.length; i += ESTIMATE_SLICE)
    for (const r of index.chunks.embeddingInputs(pending.slice(i, i + ESTIMATE_SLICE))) tokens += estimateTokens(embeddingText(r.headingPath, r.text));
  return { provider: s.provider, model: s.model, chunks: pending.length, tokens, usd: costUsd(s.price, tokens, 0) };
}

/** The report of a run that was not approved: nothing embedded, nothing sent. */
export function notApproved(s: Pick<EmbeddingsSettings, "provider" | "model">, e: EmbedEstimate): EmbedReport {
  return {
    provider: s.provider,
    model: s.model,
    dimension: null,
    chunks: e.chunks,
    reused: 0,
    embedded: 0,
    pending: e.chunks,
    requests: 0,
    retries: 0,
    pruned: 0,
    batch_size: 0,
    duration_ms: 0,
    error: { code: "cancelled", message: `Embedding ${e.chunks} chunks (about $${e.usd.toFixed(2)}) was not confirmed; nothing was sent.` },
  };
}

const ESTIMATE_SLICE = 2_000;

/** The text embedded for a chunk: its heading path, then its text. The hash covers both. */
export function embeddingText(headingPath: string[], text: string): string {
  const headings = headingPath.join(" > ");
  const full = headings ? `${headings}\n\n${text}` : text;
  return full.length > MAX_INPUT_CHARS ? full.slice(0, MAX_INPUT_CHARS) : full;
}

/**
 * Embeds every chunk whose content hash has no vector yet: batched, `concurrency` requests in
 * flight, retries with exponential backoff on transient failures, a batch the server refuses as
 * too large split in halves (and later batches made smaller). Each batch is committed as it
 * arrives, so an interrupted run resumes where it stopped. Never throws for provider failures:
 * they come back in `error` (the lexical index is never affected).
 */
export async function embedPending(
  index: IndexStore,
  vectors: VectorStore,
  provider: EmbeddingProvider,
  settings: Pick<EmbeddingsSettings, "provider" | "model">,
  opts: EmbedOptions,
): Promise<EmbedReport> {
  const started = performance.now();
  const mismatch = vectors.mismatch(settings);
  if (mismatch)
    throw new IndxError("index_incompatible", `Embeddings cannot be added: ${mismatch}. Run \`${REEMBED_FIX}\` to embed the vault again.`, {
      reason: mismatch,
      fix: REEMBED_FIX,
    });
  const denied = opts.denied ?? new Set<string>();
  const live = index.chunks.distinctHashes();
  for (const h of denied) live.delete(h);
  let have = vectors.hashes();
  // A deny glob added since these vectors were made: theirs go now, whatever kind of pass this is.
  let pruned = 0;
  if ([...denied].some((h) => have.has(h))) {
    pruned = vectors.prune(new Set([...have].filter((h) => !denied.has(h))));
    have = vectors.hashes();
  }
  if (opts.prune) pruned += vectors.prune(live);
  const pending = [...live].filter((h) => !have.has(h));
  const report: EmbedReport = {
    provider: settings.provider,
    model: settings.model,
    dimension: vectors.identity()?.dim ?? null,
    chunks: live.size,
    reused: live.size - pending.length,
    embedded: 0,
    pending: pending.length,
    requests: 0,
    retries: 0,
    pruned,
    batch_size: Math.max(1, opts.batchSize),
    duration_ms: 0,
    error: null,
  };
  const total = pending.length;
  opts.onProgress?.(0, total);
  if (total === 0) {
    report.duration_ms = Math.round(performance.now() - started);
    return report;
  }

  let cursor = 0;
  const requeued: string[][] = [];
  let stop = false;
  let done = 0;

  const take = (): string[] | null => {
    if (stop) return null;
    const again = requeued.shift();
    if (again) return again;
    if (cursor >= pending.length) return null;
    const batch = pending.slice(cursor, cursor + report.batch_size);
    cursor += batch.length;
    return batch;
  };

  const fail = (err: unknown) => {
    if (report.error) return;
    stop = true;
    const code = err instanceof IndxError || err instanceof ProviderError ? err.code : "internal";
    const message =
      err instanceof IndxError
        ? err.message
        : err instanceof ProviderError
          ? `The embeddings provider failed: ${err.message}.`
          : "Embedding failed unexpectedly.";
    report.error = { code, message };
  };

  const worker = async () => {
    for (let batch = take(); batch; batch = take()) {
      const rows = index.chunks.embeddingInputs(batch);
      if (rows.length === 0) continue; // chunks changed meanwhile
      const texts = rows.map((r) => embeddingText(r.headingPath, r.text));
      let vecs: number[][] | null = null;
      for (let attempt = 1; ; attempt++) {
        if (opts.signal?.aborted) {
          fail(new ProviderError("timeout", "embedding was cancelled"));
          return;
        }
        try {
          report.requests++;
          vecs = await provider.embed(texts, opts.signal);
          break;
        } catch (err) {
          // The cost cap, an unpriced model, the deny wall: nothing to retry. What is embedded stays.
          if (err instanceof IndxError) {
            fail(err);
            return;
          }
          const e = err instanceof ProviderError ? err : new ProviderError("bad_response", "unexpected failure");
          if (e.kind === "too_large" && rows.length > 1) {
            // Split this batch in halves and make the following ones smaller too.
            const half = Math.ceil(rows.length / 2);
            report.batch_size = Math.max(1, Math.min(report.batch_size, half));
            requeued.unshift(
              rows.slice(0, half).map((r) => r.hash),
              rows.slice(half).map((r) => r.hash),
            );
            logEvent("embeddings.batch_split", { size: rows.length, next: report.batch_size });
            break;
          }
          // A refused connection is retried once (a server starting up), not for seconds.
          const attempts = e.kind === "unreachable" ? 2 : MAX_ATTEMPTS;
          if (!e.retryable || attempt >= attempts || stop) {
            fail(e);
            return;
          }
          report.retries++;
          const delay = (opts.backoffMs ?? 500) * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
          await Bun.sleep(delay);
        }
      }
      const dim = vecs?.[0]?.length;
      if (!vecs || dim === undefined) continue;
      if (report.dimension === null) {
        try {
          vectors.initIdentity({ provider: settings.provider, model: settings.model, dim });
        } catch (err) {
          fail(err);
          return;
        }
        report.dimension = dim;
      } else if (dim !== report.dimension) {
        fail(
          new IndxError("index_incompatible", `The model now returns ${dim}-dimensional vectors, but ${report.dimension} are stored. Run \`${REEMBED_FIX}\`.`, {
            fix: REEMBED_FIX,
          }),
        );
        return;
      }
      const got = vecs;
      report.embedded += vectors.put(rows.flatMap((r, i) => (got[i] ? [{ hash: r.hash, vector: got[i] }] : [])));
      done += rows.length;
      opts.onProgress?.(done, total);
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  report.pending = Math.max(0, total - report.embedded);
  report.duration_ms = Math.round(performance.now() - started);
  logEvent("embeddings.run", {
    embedded: report.embedded,
    reused: report.reused,
    pending: report.pending,
    requests: report.requests,
    retries: report.retries,
    ms: report.duration_ms,
    ...(report.error ? { code: report.error.code } : {}),
  });
  return report;
}
