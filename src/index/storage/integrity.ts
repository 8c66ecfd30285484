/** What the check worker is asked (the index file's path) and answers. */
export interface CheckRequest {
  path: string;
}
export type CheckReply = { ok: true } | { ok: false; problem: string };

export type IntegrityResult = { state: "ok"; ms: number } | { state: "damaged"; problem: string; ms: number } | { state: "unfinished"; ms: number };

/**
 * SQLite's own check of an index file (PRAGMA quick_check: every page of every table and index is
 * read and its structure checked, without matching the indexes against their tables), bounded in
 * time: on a large index it can read a gigabyte, and `indx doctor` must answer in seconds. Past
 * `budgetMs` the worker is stopped and the check is "unfinished" (docs/decisions.md, "A damaged
 * index"). A problem message names SQLite's tree and page numbers, never a path.
 */
export async function checkIntegrity(path: string, budgetMs: number): Promise<IntegrityResult> {
  const started = performance.now();
  const worker = new Worker(new URL("./check-worker.ts", import.meta.url));
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const reply = await new Promise<CheckReply | null>((resolve) => {
      const timer = Number.isFinite(budgetMs) ? setTimeout(() => resolve(null), budgetMs) : null;
      worker.onmessage = (event: MessageEvent<CheckReply>) => {
        if (timer) clearTimeout(timer);
        resolve(event.data);
      };
      worker.onerror = (event) => {
        if (timer) clearTimeout(timer);
        resolve({ ok: false, problem: event.message });
      };
      worker.postMessage({ path } satisfies CheckRequest);
    });
    if (reply === null) return { state: "unfinished", ms: elapsed() };
    return reply.ok ? { state: "ok", ms: elapsed() } : { state: "damaged", problem: reply.problem, ms: elapsed() };
  } finally {
    // A check still running stops with its thread; unref'd meanwhile, it never holds the process open.
    worker.unref();
    worker.terminate();
  }
}
