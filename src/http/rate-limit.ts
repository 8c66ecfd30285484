/** Above this many tracked keys, idle ones are forgotten (a full bucket is the same as none). */
const MAX_TRACKED_KEYS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets, one per key (a bearer token, or a client address when auth is off): `burst`
 * requests at once, refilled at `perSecond`. A rate of 0 turns limiting off.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;

  constructor(
    private readonly perSecond: number,
    burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.burst = Math.max(1, burst);
  }

  /** Takes one request's token for `key`: 0 when allowed, else the whole seconds to wait. */
  take(key: string): number {
    if (this.perSecond <= 0) return 0;
    const bucket = this.refilled(key);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  private refilled(key: string): Bucket {
    const t = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= MAX_TRACKED_KEYS) this.forgetIdle();
      bucket = { tokens: this.burst, at: t };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((t - bucket.at) / 1000) * this.perSecond);
    bucket.at = t;
    return bucket;
  }

  private forgetIdle(): void {
    const t = this.now();
    for (const [key, b] of this.buckets) if (b.tokens + ((t - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
  }
}
