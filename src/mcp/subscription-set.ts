import { IndxError, toIndxError } from "../core/errors.ts";
import { etagOf } from "../core/hash.ts";
import type { Grant } from "../ops/grant.ts";
import { AiSubscriptions } from "./ai-subscriptions.ts";
import { isAiUri } from "./ai-uris.ts";
import type { McpHub } from "./hub.ts";
import { readResource } from "./resources.ts";
import { Subscriptions } from "./subscriptions.ts";

/** Where a subscription set sends what it found: a resource URI that changed, or that the list of resources did. */
export interface SubscriptionSink {
  updated(uri: string): void;
  listChanged(): void;
}

/**
 * The resources one subscriber watches and what a change means for them (docs/mcp.md,
 * Subscriptions): a 2025 session's resources/subscribe set and a 2026 subscriptions/listen stream
 * are both one of these, so vault://, base-result and ai:// subscriptions behave the same on either.
 * Every announcement leaves through `announce`, the one place a per-caller filter (folder grants)
 * hooks in.
 */
export class SubscriptionSet {
  private readonly vault = new Subscriptions();
  private readonly ai: AiSubscriptions;

  constructor(
    private readonly hub: McpHub,
    /** The subscriber's folder grant (docs/permissions.md): a change it hides is no change to it, results read through it. */
    private readonly grant: Grant | null,
    private readonly sink: SubscriptionSink,
  ) {
    this.ai = new AiSubscriptions(hub.liveAi, (uri) => this.announce(uri));
  }

  /** Throws validation_failed for a URI that is neither vault:// nor ai://, or past the ai:// limit. */
  async add(uri: string, requestGrant: Grant | null = null): Promise<void> {
    if (isAiUri(uri)) {
      // Live AI resources are derived for every subscriber together, over the whole vault: a
      // folder grant's subscriber reads them (through its grant) but does not subscribe to them.
      if (this.grant || requestGrant)
        throw new IndxError("forbidden", "A token with a folder grant cannot subscribe to ai:// resources; read them instead.", {
          reason: "folder_grant",
        });
      await this.hub.ready;
      await this.ai.add(uri);
      return;
    }
    this.vault.add(uri);
    if (this.vault.resultUris().includes(uri)) {
      await this.hub.ready;
      this.vault.resultChanged(uri, await this.fingerprintOf(uri));
    }
  }

  remove(uri: string): void {
    this.vault.remove(uri);
    this.ai.remove(uri);
  }

  /**
   * After an index update that changed these paths: each matching URI once, base results only if
   * they read differently; the list of resources when one of `listed` (paths added, deleted or
   * moved) is visible. Under a grant a hidden file is no change at all — not even to the list, whose
   * change would tell that a hidden file came or went (docs/permissions.md). False when nothing the
   * subscriber may see changed.
   */
  indexChanged(all: readonly string[], listed: readonly string[]): boolean {
    const grant = this.grant;
    const visible = (paths: readonly string[]) => (grant ? paths.filter((p) => grant.canRead(p)) : paths);
    const changed = visible(all);
    if (changed.length === 0) return false;
    for (const uri of this.vault.updatedUris(changed)) this.announce(uri);
    if (this.vault.resultUris().length) void this.recheckResults();
    if (visible(listed).length > 0) this.sink.listChanged();
    return true;
  }

  /**
   * After a gap whose changes are unknown (a resumed stream whose position left the event log):
   * every watched URI is announced once, since any of them may have changed.
   */
  announceAll(): void {
    for (const uri of this.vault.uris()) this.announce(uri);
  }

  /** Base results announced after `changed` without comparison: their earlier reading is not known. */
  announceResults(): void {
    for (const uri of this.vault.resultUris()) this.announce(uri);
  }

  close(): void {
    this.ai.clear();
  }

  private announce(uri: string): void {
    this.sink.updated(uri);
  }

  /** What a result URI reads as now: a hash of its text, or the code of the error it gives. */
  private async fingerprintOf(uri: string): Promise<string> {
    try {
      const read = await readResource(this.hub, this.hub.ctx.forCall({ grant: this.grant }), uri);
      const first = read.contents[0];
      return etagOf(first && "text" in first ? first.text : "");
    } catch (err) {
      return `error:${toIndxError(err).code}`;
    }
  }

  /** After an index update: each subscribed base result is read again and announced if it changed. */
  private async recheckResults(): Promise<void> {
    for (const uri of this.vault.resultUris()) if (this.vault.resultChanged(uri, await this.fingerprintOf(uri))) this.announce(uri);
  }
}
