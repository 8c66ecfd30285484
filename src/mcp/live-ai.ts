import { scopeFingerprint } from "../ai/scope-fingerprint.ts";
import { IndxError } from "../core/errors.ts";
import { debugLog } from "../core/log.ts";
import type { OpContext } from "../ops/context.ts";
import { deriveAiResource } from "./ai-resources.ts";
import { type AiUri, parseAiUri } from "./ai-uris.ts";

/** A burst of changes is over after this long without another (editors autosave every second or two). */
const QUIET_MS = 1_000;
/** A burst that never pauses is still settled this long after it began. */
const MAX_WAIT_MS = 10_000;

/** One subscribed ai:// URI, shared by every session subscribed to it. */
interface Live {
  readonly target: AiUri;
  /** scopeFingerprint() as of the last derivation (or the subscription). */
  fingerprint: string;
  readonly listeners: Set<() => void>;
  timer: ReturnType<typeof setTimeout> | null;
  burstStartedAt: number | null;
  /** Settling: fingerprinting and deriving. Changes meanwhile start the next burst when it is done. */
  busy: boolean;
  changedWhileBusy: boolean;
}

/**
 * Subscriptions to ai:// resources (docs/mcp.md, AI resources). After a burst of note changes each
 * subscribed resource compares its scope's fingerprint (no model involved); when it moved — a note
 * it read changed, or one joined or left the scope — the result is derived again (once, through
 * the operation and so into the AI cache, where the subscriber's next read finds it) and each
 * subscriber hears one notifications/resources/updated. A change outside every scope costs a
 * fingerprint per resource and nothing else.
 */
export class LiveAiResources {
  private readonly live = new Map<string, Live>();

  /** `ctx` reads: the derivations run with it, whoever subscribed. */
  constructor(private readonly ctx: OpContext) {}

  /**
   * Starts telling `listener` when the resource at `uri` changes; returns what stops it.
   * validation_failed for a bad URI, ai_unavailable without a chat model.
   */
  async watch(uri: string, listener: () => void): Promise<() => void> {
    const target = parseAiUri(uri);
    this.ctx.ai.chat();
    let entry = this.live.get(uri);
    if (!entry) {
      const fingerprint = await scopeFingerprint(this.ctx, target.scope);
      entry = this.live.get(uri) ?? { target, fingerprint, listeners: new Set(), timer: null, burstStartedAt: null, busy: false, changedWhileBusy: false };
      this.live.set(uri, entry);
    }
    const watched = entry;
    watched.listeners.add(listener);
    return () => {
      watched.listeners.delete(listener);
      if (watched.listeners.size > 0 || this.live.get(uri) !== watched) return;
      if (watched.timer) clearTimeout(watched.timer);
      this.live.delete(uri);
    };
  }

  /** Notes changed somewhere in the vault. */
  vaultChanged(): void {
    for (const entry of this.live.values()) this.schedule(entry);
  }

  close(): void {
    for (const entry of this.live.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.listeners.clear();
    }
    this.live.clear();
  }

  /** (Re)starts the quiet period, never past MAX_WAIT_MS from the burst's first change. */
  private schedule(entry: Live): void {
    if (entry.busy) {
      entry.changedWhileBusy = true;
      return;
    }
    const now = Date.now();
    entry.burstStartedAt ??= now;
    if (entry.timer) clearTimeout(entry.timer);
    const wait = Math.max(0, Math.min(QUIET_MS, entry.burstStartedAt + MAX_WAIT_MS - now));
    entry.timer = setTimeout(() => void this.settle(entry), wait);
  }

  private async settle(entry: Live): Promise<void> {
    entry.timer = null;
    entry.burstStartedAt = null;
    entry.busy = true;
    try {
      const fingerprint = await scopeFingerprint(this.ctx, entry.target.scope);
      // Everyone may have unsubscribed while the scope was being resolved: then nobody pays for a derivation.
      if (fingerprint !== entry.fingerprint && entry.listeners.size > 0) {
        entry.fingerprint = fingerprint;
        await this.derive(entry);
        for (const listener of entry.listeners) listener();
      }
    } finally {
      entry.busy = false;
    }
    if (entry.changedWhileBusy) {
      entry.changedWhileBusy = false;
      if (entry.listeners.size > 0) this.schedule(entry);
    }
  }

  /** A failed derivation still changed what a read returns (now the error), so subscribers hear of it either way. */
  private async derive(entry: Live): Promise<void> {
    try {
      await deriveAiResource(this.ctx, entry.target);
    } catch (err) {
      if (!(err instanceof IndxError)) debugLog("live AI resource failed", { resource: entry.target.resource, error: err });
    }
  }
}
