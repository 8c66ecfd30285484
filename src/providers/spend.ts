import { IndxError } from "../core/errors.ts";
import type { AiDb } from "../index/storage/ai-db.ts";

const utcDay = (now: Date) => now.toISOString().slice(0, 10);
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** A request's worst-case cost, held in the ledger until the request is settled. */
export interface SpendHold {
  readonly usd: number;
  /** Replaces the hold with what the request cost (once; later calls do nothing). */
  settle(usd: number): void;
}

/**
 * What the AI runtime spent per UTC day, in ai-cache.db so it holds across restarts and across
 * every process of the vault (docs/contracts.md, AI runtime: cost). A request holds its worst case
 * (src/providers/meter.ts) before it is sent, atomically across threads and processes, and is settled to
 * its reported cost after: under a cap, the day can overshoot by one request's worst case at most.
 */
export class SpendLedger {
  constructor(
    private readonly records: AiDb,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Holds `usd` for one request, or ai_quota_exceeded when what is spent and held today has
   * reached the cap (null: no cap; the request is still counted).
   */
  hold(capUsd: number | null, usd: number): SpendHold {
    const now = this.clock();
    const held = this.records.hold(utcDay(now), Math.max(0, usd), capUsd, now.getTime());
    if ("refused" in held) throw this.exceeded(capUsd ?? 0, round6(held.refused), now);
    let open = true;
    return {
      usd: Math.max(0, usd),
      settle: (cost: number) => {
        if (!open) return;
        open = false;
        this.records.settle(held.id, Math.max(0, cost));
      },
    };
  }

  /** Spent today, with what requests in flight hold. */
  today(): number {
    const day = utcDay(this.clock());
    return round6(this.records.spendOn(day).usd + this.records.heldOn(day));
  }

  /** Model requests made today, across processes. */
  requestsToday(): number {
    return this.records.spendOn(utcDay(this.clock())).calls;
  }

  /** ai_quota_exceeded once today's spend has reached the cap (null: no cap), with when it resets. */
  check(capUsd: number | null): void {
    if (capUsd === null) return;
    const spent = this.today();
    if (spent >= capUsd) throw this.exceeded(capUsd, spent, this.clock());
  }

  private exceeded(capUsd: number, spent: number, now: Date): IndxError {
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    const retry = Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000));
    return new IndxError("ai_quota_exceeded", `Today's AI spend ($${spent.toFixed(4)}) has reached ai.daily_cost_usd ($${capUsd}); it resets at 00:00 UTC.`, {
      reset_at: reset.toISOString(),
      retry_after_s: retry,
      spent_usd: spent,
      cap_usd: capUsd,
    });
  }
}
