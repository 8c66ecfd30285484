import { statSync } from "node:fs";
import type { App } from "../app/context.ts";
import { toIndxError } from "../core/errors.ts";
import { checkFolders, saveFolderStamps } from "../index/build/folder-check.ts";
import { BUSY_TIMEOUT_MS, type IndexStore } from "../index/storage/store.ts";
import { printErr } from "./io.ts";

/** A refresh waits this long for another writer (a server's index pass) before answering stale. */
const REFRESH_WAIT_MS = 500;
/** At most this many of an answer's paths are checked against the disk (a page of results is far fewer). */
const ANSWER_PATHS_MAX = 1_000;

/**
 * CLI reads are current (docs/decisions.md, "CLI output" and "A CLI read that is current and
 * fast"): before a read, what was added, deleted or renamed on disk is indexed, found by the
 * folders whose mtime moved (src/index/build/folder-check.ts); an index without folder stamps gets the
 * stat pass of a full incremental index instead. When the update cannot run (a read-only data
 * folder, another writer holding the index), the read answers from the index as last built and
 * says so on stderr. A missing or incompatible index is left to the read itself, whose error
 * names the fix.
 */
export async function refreshIndex(ctx: App): Promise<void> {
  await whileRefreshing(ctx, async (index) => {
    const check = checkFolders(ctx.vault, index);
    if (check === null) return void (await ctx.updateIndex({ full: true }));
    if (check.paths.length) await ctx.updateIndex({ paths: check.paths });
    const folders = check.folders;
    if (folders) index.transaction(() => saveFolderStamps(index, folders))();
  });
}

/**
 * After a read: the files its answer names (every `path` in it) are statted, and those that
 * changed on disk since they were indexed (an edit in place moves no folder) are indexed again.
 * True when any was: the caller answers again.
 */
export async function refreshAnswer(ctx: App, answer: unknown): Promise<boolean> {
  const paths = answerPaths(answer);
  if (!paths.length) return false;
  let changed: string[] = [];
  const refreshed = await whileRefreshing(ctx, async (index) => {
    changed = index.files
      .stampsOf(paths)
      .filter(([path, size, mtimeMs]) => {
        try {
          const st = statSync(ctx.vault.abs(path));
          return !st.isFile() || st.size !== size || Math.floor(st.mtimeMs) !== mtimeMs;
        } catch {
          return true;
        }
      })
      .map(([path]) => path);
    if (changed.length) await ctx.updateIndex({ paths: changed });
  });
  return refreshed && changed.length > 0;
}

/** Runs an index update with a short lock wait; false (and a warning) when it could not. */
async function whileRefreshing(ctx: App, update: (index: IndexStore) => Promise<void>): Promise<boolean> {
  let index: IndexStore;
  try {
    index = ctx.index;
  } catch {
    return false;
  }
  index.setBusyTimeout(REFRESH_WAIT_MS);
  try {
    await update(index);
    return true;
  } catch (err) {
    const e = toIndxError(err);
    // A damaged index answers nothing reliably: the read fails with the fix instead of a stale answer.
    if (e.code === "index_corrupt") throw e;
    const why = e.code === "internal" ? "another process holds the index, or its folder is read-only" : e.message;
    printErr(`warning: the index could not be brought up to date (${why}); the answer may be stale. Run \`indx vault index\` to update it.`);
    return false;
  } finally {
    index.setBusyTimeout(BUSY_TIMEOUT_MS);
  }
}

/** Every `path` string in an answer, each once, in order. */
function answerPaths(answer: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, depth: number) => {
    if (found.size >= ANSWER_PATHS_MAX || depth > 6 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === "path" && typeof item === "string") found.add(item);
      else visit(item, depth + 1);
    }
  };
  visit(answer, 0);
  return [...found];
}
