import { IndxError } from "../core/errors.ts";
import type { AiDb } from "../index/storage/ai-db.ts";

const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/**
 * What the AI runtime spent per UTC day, in ai-cache.db so it holds across restarts and across
 * every process of the vault (docs/contracts.md, AI runtime: cost).
 */
export class SpendLedger {
  constructor(
    private readonly records: AiDb,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** One model request and what it cost (free ones count as requests too). */
  add(usd: number): void {
    this.records.addSpend(utcDay(this.clock()), Math.max(0, usd));
  }

  today(): number {
    return Math.round(this.records.spendOn(utcDay(this.clock())).usd * 1e6) / 1e6;
  }

  /** Model requests made today, across processes. */
  requestsToday(): number {
    return this.records.spendOn(utcDay(this.clock())).calls;
  }

  /** ai_quota_exceeded once today's spend has reached the cap (null: no cap), with when it resets. */
  check(capUsd: number | null): void {
    if (capUsd === null) return;
    const spent = this.today();
    if (spent < capUsd) return;
    const now = this.clock();
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    const retry = Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000));
    throw new IndxError("ai_quota_exceeded", `Today's AI spend ($${spent.toFixed(4)}) has reached ai.daily_cost_usd ($${capUsd}); it resets at 00:00 UTC.`, {
      reset_at: reset.toISOString(),
      retry_after_s: retry,
      spent_usd: spent,
      cap_usd: capUsd,
    });
  }
}
