import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../app/context.ts";
import type { ReaderPool } from "../app/reader-pool.ts";
import type { VaultEvent } from "../events/types.ts";
import { LiveAiResources } from "./live-ai.ts";
import { ReplayCache } from "./replay.ts";

/** A connected session, as the hub sees it: told about index updates. */
export interface HubSession {
  /**
   * `listed`: the paths added, deleted or moved, so resources/list changed for whoever may see one
   * of them (a folder grant may see none: docs/permissions.md). `eventId`: the last vault event of
   * the burst (events.log), where a resumed subscriptions/listen stream starts.
   */
  indexChanged(changed: readonly string[], listed: readonly string[], eventId: string | null): void;
}

/**
 * What the MCP sessions of one process share: the vault's App, the replay cache, derived
 * resource views, the moment the index is ready, and the fan-out of index updates to each
 * session's subscriptions. Whoever changed a file (indx, an editor seen by the watcher), the
 * index update reaches every session here.
 */
export class McpHub {
  readonly replays = new ReplayCache<CallToolResult>();
  /** Views derived from the index (e.g. vault://graph), dropped on every index update. */
  readonly derived = new Map<string, unknown>();
  /** Bumped on every index update; results computed across a bump are not cached. */
  generation = 0;
  /** Subscribed ai:// resources, shared by the sessions so that one burst of changes derives each once. */
  readonly liveAi: LiveAiResources;
  /** Where read tools run when the server has a reader pool (`serve`); null runs them on this thread. */
  readers: ReaderPool | null = null;
  /** Resolves when the index has been brought up to date (stdio starts before that). */
  ready: Promise<void> = Promise.resolve();
  private readonly sessions = new Set<HubSession>();
  private readonly unlisten: (() => void)[];
  private readonly pending = new Set<string>();
  private readonly pendingListed = new Set<string>();
  private pendingEventId: string | null = null;
  private logPosition = -1;
  private flushQueued = false;

  /**
   * Caches follow index updates; subscriptions follow events — a write through indx (here or in
   * another indx process, via events.log) or a change the watcher found on disk.
   */
  constructor(readonly ctx: App) {
    this.liveAi = new LiveAiResources(ctx.forCall({ scopes: new Set(["vault:read"]) }));
    this.unlisten = [ctx.onIndexUpdate(() => this.invalidate()), ctx.events.subscribe((e) => this.vaultEvent(e))];
  }

  attach(session: HubSession): () => void {
    this.sessions.add(session);
    return () => this.sessions.delete(session);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Forgets replays and derived views when the shared event log moved since the last call: another
   * indx process on the vault wrote (a replica behind a load balancer, a CLI), and its event may
   * not have been followed yet (follow.ts polls). One stat per call keeps a replay from answering
   * with what that write changed (docs/mcp.md, MCP 2026-07-28).
   */
  syncWithLog(): void {
    const at = this.ctx.events.position();
    if (at !== this.logPosition) {
      if (this.logPosition !== -1) this.invalidate();
      this.logPosition = at;
    }
  }

  /** Forgets replays and derived views: after any index update, and after any unsafe call. */
  invalidate(): void {
    this.generation++;
    this.replays.clear();
    this.derived.clear();
  }

  private vaultEvent(e: VaultEvent): void {
    if (!e.kind.startsWith("note.")) return;
    this.invalidate();
    for (const p of [e.path, e.from, e.to])
      if (typeof p === "string") {
        this.pending.add(p);
        if (e.kind !== "note.updated") this.pendingListed.add(p);
      }
    this.pendingEventId = e.id;
    // One index pass emits an event per file: sessions hear about them together.
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  private flush(): void {
    const changed = [...this.pending];
    const listed = [...this.pendingListed];
    const eventId = this.pendingEventId;
    this.pending.clear();
    this.pendingEventId = null;
    this.pendingListed.clear();
    this.flushQueued = false;
    if (changed.length === 0) return;
    for (const s of this.sessions) s.indexChanged(changed, listed, eventId);
    this.liveAi.vaultChanged();
  }

  close(): void {
    for (const stop of this.unlisten) stop();
    this.liveAi.close();
    this.sessions.clear();
  }
}
