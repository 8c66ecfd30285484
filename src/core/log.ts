/**
 * Structured log lines on stderr (stdout belongs to command output and to MCP stdio).
 * Callers pass only codes, counts, durations and route templates: never note text, queries,
 * tokens or absolute paths (docs/contracts.md, Privacy and safety).
 */
export function logEvent(event: string, fields: Record<string, unknown> = {}): void {
  const mode = process.env.INDX_LOG;
  if (mode === "off") return;
  const ts = new Date();
  const human = mode === "human" || (mode !== "json" && process.stderr.isTTY === true);
  process.stderr.write(human ? `${humanLine(ts, event, fields)}\n` : `${JSON.stringify({ ts: ts.toISOString(), event, ...fields })}\n`);
}

/**
 * A log line for a person at a terminal: local time, the event, then key=value pairs. Programs
 * reading stderr from a pipe get JSON lines (INDX_LOG=json or human forces either).
 */
export function humanLine(ts: Date, event: string, fields: Record<string, unknown>): string {
  const time = ts.toTimeString().slice(0, 8);
  const pairs = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`);
  return [time, event.replaceAll("_", " "), ...pairs].join("  ");
}

/** Details of unexpected failures, only when INDX_DEBUG=1: they may hold paths, so never by default. */
export function debugLog(message: string, fields: Record<string, unknown> = {}): void {
  if (process.env.INDX_DEBUG !== "1") return;
  const safe = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Error ? (v.stack ?? v.message) : v]));
  process.stderr.write(`[indx debug] ${message} ${JSON.stringify(safe)}\n`);
}
