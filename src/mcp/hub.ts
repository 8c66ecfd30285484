import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { OpContext } from "../ops/context.ts";
import { ReplayCache } from "./replay.ts";

/** A connected session, as the hub sees it: told about index updates. */
export interface HubSession {
  /** `listChanged`: files were added or deleted, so resources/list changed too. */
  indexChanged(changed: readonly string[], listChanged: boolean): void;
}

/**
 * What the MCP sessions of one process share: the vault's OpContext, the replay cache, derived
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
  /** Resolves when the index has been brought up to date (stdio starts before that). */
  ready: Promise<void> = Promise.resolve();
  private readonly sessions = new Set<HubSession>();
  private readonly unlisten: () => void;

  constructor(readonly ctx: OpContext) {
    this.unlisten = ctx.onIndexUpdate((report) => this.indexUpdated(report.changed ?? [], report.added + report.deleted > 0));
  }

  attach(session: HubSession): () => void {
    this.sessions.add(session);
    return () => this.sessions.delete(session);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Forgets replays and derived views: after any index update, and after any unsafe call. */
  invalidate(): void {
    this.generation++;
    this.replays.clear();
    this.derived.clear();
  }

  private indexUpdated(changed: readonly string[], listChanged: boolean): void {
    this.invalidate();
    if (changed.length === 0) return;
    for (const s of this.sessions) s.indexChanged(changed, listChanged);
  }

  close(): void {
    this.unlisten();
    this.sessions.clear();
  }
}
