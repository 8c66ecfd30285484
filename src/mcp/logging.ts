import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type LoggingLevel, LoggingLevelSchema, type ServerNotification } from "@modelcontextprotocol/sdk/types.js";

/** debug … emergency, in rising severity (MCP spec, logging). */
const SEVERITY: readonly LoggingLevel[] = LoggingLevelSchema.options;

/** What a session may log: events with names, paths and counts; never note text or queries. */
export type LogEvent = { event: string } & Record<string, string | number | boolean | string[] | undefined>;

export type Log = (level: LoggingLevel, data: LogEvent) => void;

type Send = (notification: ServerNotification) => Promise<void>;

/**
 * One session's notifications/message: sent at or above the level the client chose with
 * logging/setLevel ("info" until it chooses).
 */
export class SessionLog {
  private level: LoggingLevel = "info";

  constructor(private readonly server: Server) {}

  setLevel(level: LoggingLevel): void {
    this.level = level;
  }

  /** Session-wide events (over HTTP they travel on the GET stream). */
  readonly send: Log = (level, data) => this.emit(level, data, (n) => this.server.notification(n));

  /** Events of one request: they travel with its answer (over HTTP, on its POST stream, before the result). */
  forRequest(send: Send): Log {
    return (level, data) => this.emit(level, data, send);
  }

  private emit(level: LoggingLevel, data: LogEvent, send: Send): void {
    emitAtOrAbove(this.level, level, data, send);
  }
}

/**
 * A 2026 request's log: only when its `_meta` names a level (the spec forbids notifications/message
 * otherwise), and only on that request's own answer stream.
 */
export function requestLog(threshold: unknown, send: Send): Log | undefined {
  const level = SEVERITY.find((l) => l === threshold);
  return level ? (at, data) => emitAtOrAbove(level, at, data, send) : undefined;
}

function emitAtOrAbove(threshold: LoggingLevel, level: LoggingLevel, data: LogEvent, send: Send): void {
  if (SEVERITY.indexOf(level) < SEVERITY.indexOf(threshold)) return;
  send({ method: "notifications/message", params: { level, logger: "indx", data } }).catch(() => {});
}
