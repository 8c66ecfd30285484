/**
 * Results derived from the index, kept while the index stays the same (docs/decisions.md,
 * "Derived results are kept per index version"): a list that reads the whole vault is computed
 * once per version and every page after the first is read from it. Memory is bounded by weight
 * (about one unit per row kept), least recently used first out; a result heavier than the whole
 * bound is returned but not kept.
 */
export class VersionedMemo {
  private version: string | null = null;
  private readonly entries = new Map<string, { value: unknown; weight: number }>();
  private weight = 0;

  constructor(
    private readonly maxWeight = 400_000,
    private readonly maxEntries = 32,
  ) {}

  /** The value for `key` at `version`: kept from an earlier call, or computed now (and kept if it fits). */
  get<V>(version: string, key: string, compute: () => V, weightOf: (value: V) => number): V {
    if (version !== this.version) this.clear(version);
    const hit = this.entries.get(key);
    if (hit) {
      // Map order is insertion order: moving the entry to the end marks it most recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value as V;
    }
    const value = compute();
    const weight = Math.max(1, weightOf(value));
    if (weight > this.maxWeight) return value;
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [k, e] of this.entries) {
      if (this.weight <= this.maxWeight && this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
      this.weight -= e.weight;
    }
    return value;
  }

  /** How many results are kept (for tests). */
  get size(): number {
    return this.entries.size;
  }

  private clear(version: string): void {
    this.version = version;
    this.entries.clear();
    this.weight = 0;
  }
}
