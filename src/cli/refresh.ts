import type { App } from "../app/context.ts";
import { toIndxError } from "../core/errors.ts";
import { BUSY_TIMEOUT_MS } from "../index/storage/store.ts";
import { printErr } from "./io.ts";

/** A refresh waits this long for another writer (a server's index pass) before answering stale. */
const REFRESH_WAIT_MS = 500;

/**
 * CLI reads are current (docs/decisions.md, "CLI output"): before a read, the stat pass of an
 * incremental index brings in what changed on disk, so a deleted note is never returned and a new
 * one is never missing. When the pass cannot run (a read-only data folder, another writer holding
 * the index), the read answers from the index as last built and says so on stderr. A missing or
 * incompatible index is left to the read itself, whose error names the fix; so is a damaged one.
 */
export async function refreshIndex(ctx: App): Promise<void> {
  let index: App["index"];
  try {
    index = ctx.index;
  } catch {
    return;
  }
  index.setBusyTimeout(REFRESH_WAIT_MS);
  try {
    await ctx.updateIndex({ full: true });
  } catch (err) {
    const e = toIndxError(err);
    // A damaged index answers nothing reliably: the read fails with the fix instead of a stale answer.
    if (e.code === "index_corrupt") throw e;
    const why = e.code === "internal" ? "another process holds the index, or its folder is read-only" : e.message;
    printErr(`warning: the index could not be brought up to date (${why}); the answer may be stale. Run \`indx vault index\` to update it.`);
  } finally {
    index.setBusyTimeout(BUSY_TIMEOUT_MS);
  }
}
