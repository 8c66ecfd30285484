import { sha256Hex } from "../core/random.ts";
import type { AiDb, CacheStats } from "../index/storage/ai-db.ts";

/** Entries kept at most; the oldest go first. */
const MAX_ENTRIES = 5_000;

/** Everything that decides an AI result (docs/contracts.md, AI runtime: cache). */
export interface CacheKeyParts {
  op: string;
  provider: string;
  model: string;
  temperature: number;
  seed: number;
  maxOutputTokens: number;
  /** The prompt and reply shapes' version. */
  schema: string;
  /** The caller's input without the fields that never change a result. */
  input: Record<string, unknown>;
  /** (path, etag) of every note the call read, sorted: an edit makes a new key. */
  fingerprint: [string, string][];
}

/** Canonical JSON: object keys sorted, so the same input always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

export function cacheKey(parts: CacheKeyParts): string {
  const fingerprint = [...parts.fingerprint].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(canonical({ ...parts, fingerprint }));
}

/**
 * The AI result cache: a hit is a result computed from exactly these notes at exactly these
 * versions, by the same model and settings, within its TTL. Entries remember the notes they read,
 * so an edit drops them; the fingerprint in the key would miss them anyway, dropping keeps the file small.
 */
export class AiCache {
  constructor(private readonly records: AiDb) {}

  get<T>(key: string): T | null {
    const row = this.records.get(key, Date.now());
    return row ? (row.value as T) : null;
  }

  put(key: string, value: unknown, paths: readonly string[], ttlSeconds: number): void {
    if (ttlSeconds <= 0) return;
    const now = Date.now();
    this.records.put(key, value, paths, now, now + ttlSeconds * 1000, MAX_ENTRIES);
  }

  invalidatePaths(paths: readonly string[]): number {
    return this.records.invalidatePaths(paths);
  }

  stats(): CacheStats {
    return this.records.stats(Date.now());
  }
}
