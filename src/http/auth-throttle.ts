/** Above this many tracked addresses, the oldest are forgotten first. */
const MAX_TRACKED_ADDRESSES = 10_000;

/**
 * Slows down token guessing: a client address with `limit` failed authentications within
 * `windowMs` is refused (before its token is even checked) until the oldest of them ages out.
 * A limit of 0 turns throttling off.
 */
export class AuthFailureThrottle {
  /** The most recent failure times per address, at most `limit` of them, oldest first. */
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whole seconds until `address` may try again, or 0. */
  blockedFor(address: string): number {
    if (this.limit <= 0) return 0;
    const recent = this.recent(address);
    const oldest = recent[0];
    if (recent.length < this.limit || oldest === undefined) return 0;
    return Math.max(1, Math.ceil((oldest + this.windowMs - this.now()) / 1000));
  }

  recordFailure(address: string): void {
    if (this.limit <= 0) return;
    const recent = [...this.recent(address), this.now()].slice(-this.limit);
    this.failures.delete(address);
    if (this.failures.size >= MAX_TRACKED_ADDRESSES) this.forgetOldest();
    this.failures.set(address, recent);
  }

  private recent(address: string): number[] {
    const since = this.now() - this.windowMs;
    const kept = (this.failures.get(address) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.failures.delete(address);
    return kept;
  }

  private forgetOldest(): void {
    const oldest = this.failures.keys().next();
    if (!oldest.done) this.failures.delete(oldest.value);
  }
}
