import { IndxError } from "../core/errors.ts";
import { sha256Hex } from "../core/random.ts";
import { StateDb } from "../index/storage/state-db.ts";

const TTL_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 200;

export interface StoredResult {
  result: unknown;
}

/**
 * Idempotency records live in state.db beside the index, not in it: the index is derived and
 * may be rebuilt at any time, but a client retrying a write must still get its first answer.
 * Only successful results are stored; a failed write changed nothing and may simply be retried.
 */
export class IdempotencyStore {
  private readonly state: StateDb;
  /** Same key in flight in this process: the second caller waits for the first one's answer. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(dataDir: string) {
    this.state = new StateDb(dataDir);
    this.state.deleteIdempotencyRecordsBefore(Date.now() - TTL_MS);
  }

  /**
   * Runs `fn` once per key. The same key with the same request replays the stored result;
   * with a different request it is idempotency_key_reused.
   */
  async once<T>(key: string, request: unknown, fn: () => Promise<T>): Promise<{ result: T; replayed: boolean }> {
    validateKey(key);
    const fingerprint = fingerprintOf(request);
    const pending = this.inFlight.get(key);
    if (pending) await pending.catch(() => undefined);

    const stored = this.lookup(key, fingerprint);
    if (stored) return { result: stored.result as T, replayed: true };

    const run = fn();
    this.inFlight.set(key, run);
    try {
      const result = await run;
      this.state.saveIdempotencyRecord({ key, fingerprint, result, createdAt: Date.now() });
      return { result, replayed: false };
    } finally {
      if (this.inFlight.get(key) === run) this.inFlight.delete(key);
    }
  }

  private lookup(key: string, fingerprint: string): StoredResult | null {
    const row = this.state.idempotencyRecord(key);
    if (!row || row.createdAt < Date.now() - TTL_MS) return null;
    if (row.fingerprint !== fingerprint)
      throw new IndxError("idempotency_key_reused", "This Idempotency-Key was already used with a different request.", {
        reason: "different_request",
      });
    return { result: row.result };
  }

  close(): void {
    this.state.close();
  }
}

function validateKey(key: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the key may not hold
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || /[\u0000-\u001f]/.test(key))
    throw new IndxError("validation_failed", `An idempotency key is 1–${MAX_KEY_LENGTH} printable characters.`, {
      field: "idempotency_key",
    });
}

/** A stable hash of a JSON value: object keys sorted, so key order never changes the request. */
export function fingerprintOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
