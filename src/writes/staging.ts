import { IndxError } from "../core/errors.ts";
import { commitStagedAsync, discardStaged, type StagedFile, stageFiles } from "./atomic.ts";

/** A write of a plan, ready to stage: where its bytes go, or why they cannot go there. */
export type WriteTarget<K> = { key: K; target: string; bytes: Uint8Array } | { key: K; error: IndxError };

/**
 * The new bytes of every write of a plan, staged before the first file is replaced (see
 * stageFiles), then renamed over their files one by one in the plan's order. A write whose bytes
 * could not be staged fails where the plan reaches it, as it would have failed writing them then.
 */
export class Staging<K> {
  private constructor(private readonly pending: Map<K, StagedFile | IndxError>) {}

  static async of<K>(writes: readonly WriteTarget<K>[]): Promise<Staging<K>> {
    const ready = writes.filter((w) => "target" in w);
    const staged = await stageFiles(ready);
    const pending = new Map<K, StagedFile | IndxError>();
    for (const w of writes) if ("error" in w) pending.set(w.key, w.error);
    for (const [i, w] of ready.entries()) {
      const file = staged[i];
      if (file === undefined) throw new IndxError("internal", "staging returned fewer files than it was given");
      pending.set(w.key, file);
    }
    return new Staging(pending);
  }

  /** Replaces the file of `key` with its staged bytes (returning the file's path), or throws the error staging them met. */
  async commit(key: K): Promise<string> {
    const staged = this.pending.get(key);
    this.pending.delete(key);
    if (staged === undefined) throw new Error("commit of a write that was not staged");
    if (staged instanceof Error) throw staged;
    await commitStagedAsync(staged);
    return staged.target;
  }

  /** Removes the temp files of the writes never committed (a change before them failed). */
  discardRest(): void {
    for (const staged of this.pending.values()) if (!(staged instanceof Error)) discardStaged(staged);
    this.pending.clear();
  }
}
