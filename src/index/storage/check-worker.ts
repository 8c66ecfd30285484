/**
 * An integrity-check worker: runs SQLite's quick_check on one index file and posts what it found
 * (src/index/storage/integrity.ts). A thread of its own so the caller can stop waiting for it: SQLite
 * offers bun:sqlite no way to interrupt the check. An entrypoint of its own in the compiled binary
 * (scripts/build.ts).
 */
import { Database } from "bun:sqlite";
import type { CheckReply, CheckRequest } from "./integrity.ts";

declare const self: Worker;

/** quick_check stops after this many problems: the first ones say enough. */
const MAX_PROBLEMS = 5;

self.onmessage = (event: MessageEvent<CheckRequest>) => {
  let reply: CheckReply;
  try {
    const db = new Database(event.data.path, { readonly: true });
    try {
      const rows = db.query<{ quick_check: string }, []>(`PRAGMA quick_check(${MAX_PROBLEMS})`).all();
      const problems = rows.map((r) => r.quick_check).filter((r) => r !== "ok");
      reply = problems.length === 0 ? { ok: true } : { ok: false, problem: problems.join("; ") };
    } finally {
      db.close();
    }
  } catch (err) {
    reply = { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
