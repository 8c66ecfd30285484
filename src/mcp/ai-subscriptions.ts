import { IndxError } from "../core/errors.ts";
import type { LiveAiResources } from "./live-ai.ts";

/** Each may cost a model request per burst of changes, so a session holds only a few. */
export const MAX_AI_SUBSCRIPTIONS = 8;

/** One session's subscriptions to ai:// resources, kept apart from its vault:// ones because each is live (LiveAiResources). */
export class AiSubscriptions {
  private readonly stops = new Map<string, () => void>();

  constructor(
    private readonly live: LiveAiResources,
    private readonly updated: (uri: string) => void,
  ) {}

  /** Subscribing twice to one URI is one subscription. */
  async add(uri: string): Promise<void> {
    if (this.stops.has(uri)) return;
    if (this.stops.size >= MAX_AI_SUBSCRIPTIONS)
      throw new IndxError("validation_failed", `A session holds at most ${MAX_AI_SUBSCRIPTIONS} ai:// subscriptions; unsubscribe one first.`, {
        reason: "too_many_ai_subscriptions",
        max: MAX_AI_SUBSCRIPTIONS,
      });
    // The slot is taken before the wait, so concurrent subscribes cannot pass the limit together.
    let cancelled = false;
    this.stops.set(uri, () => {
      cancelled = true;
    });
    try {
      const stop = await this.live.watch(uri, () => this.updated(uri));
      if (cancelled) stop();
      else this.stops.set(uri, stop);
    } catch (err) {
      if (!cancelled) this.stops.delete(uri);
      throw err;
    }
  }

  remove(uri: string): void {
    this.stops.get(uri)?.();
    this.stops.delete(uri);
  }

  clear(): void {
    for (const stop of this.stops.values()) stop();
    this.stops.clear();
  }
}
