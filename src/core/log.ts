/**
 * Structured log lines on stderr (stdout belongs to command output and to MCP stdio).
 * Callers pass only codes, counts, durations and route templates: never note text, queries,
 * tokens or absolute paths (docs/contracts.md, Privacy and safety).
 */
export function logEvent(event: string, fields: Record<string, unknown> = {}): void {
  if (process.env.INDX_LOG === "off") return;
  process.stderr.write(`${JSON.stringify({ ts: new Date().toISOString(), event, ...fields })}\n`);
}

/** Details of unexpected failures, only when INDX_DEBUG=1: they may hold paths, so never by default. */
export function debugLog(message: string, fields: Record<string, unknown> = {}): void {
  if (process.env.INDX_DEBUG !== "1") return;
  const safe = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Error ? (v.stack ?? v.message) : v]));
  process.stderr.write(`[indx debug] ${message} ${JSON.stringify(safe)}\n`);
}
