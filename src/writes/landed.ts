import type { NewEvent } from "../events/types.ts";
import type { Warning } from "../ops/schemas.ts";

/** A write whose files are in place: what it touched, what it announces, since when it ran. */
export interface Landed {
  paths: readonly string[];
  /** Folders whose fsync makes its replaces durable, left to the batch. */
  folders: readonly string[];
  events: readonly NewEvent[];
  started: number;
}

interface Waiting extends Landed {
  done: PromiseWithResolvers<Warning[]>;
}

/**
 * The folder fsyncs, the reindex and the events of writes whose files are in place, in batches
 * (docs/decisions.md, "One queue of writers per vault"). A landed write's reindex starts at once when none runs;
 * otherwise it joins the next batch, which starts when the running one ends. The writer's turn ends
 * as soon as its files are in place, so the next writer's files go in while the index worker
 * takes the previous batch, and one index pass serves every write that landed meanwhile. Each
 * write's caller hears its answer once its batch is indexed and announced, so the answer still
 * reads what it wrote; events go out in the order the writes landed.
 */
export class LandedWrites {
  private pending: Waiting[] = [];
  private running: Promise<void> | null = null;

  constructor(
    /** Fsyncs folders; never throws (a folder's fsync is best effort). */
    private readonly syncFolders: (folders: string[]) => Promise<void>,
    /** Reindexes paths; never throws (a failure is a warning: the file landed). */
    private readonly reindex: (paths: string[]) => Promise<Warning[]>,
    private readonly announce: (events: readonly NewEvent[], started: number) => void,
  ) {}

  /** Some landed write is not indexed yet: a plan that reads the index waits for `settled` first. */
  get unsettled(): boolean {
    return this.running !== null || this.pending.length > 0;
  }

  /** Resolves with the warnings of the reindex that covered this write, once its events are out. */
  add(landed: Landed): Promise<Warning[]> {
    const done = Promise.withResolvers<Warning[]>();
    this.pending.push({ ...landed, done });
    this.next();
    return done.promise;
  }

  /** Resolves once every write landed so far is indexed and announced. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private next(): void {
    if (this.running || this.pending.length === 0) return;
    const batch = this.pending.splice(0);
    this.running = this.run(batch).finally(() => {
      this.running = null;
      this.next();
    });
  }

  private async run(batch: readonly Waiting[]): Promise<void> {
    await this.syncFolders([...new Set(batch.flatMap((w) => w.folders))]);
    const warnings = await this.reindex([...new Set(batch.flatMap((w) => w.paths))]);
    for (const w of batch) {
      try {
        this.announce(w.events, w.started);
        w.done.resolve(warnings);
      } catch (err) {
        w.done.reject(err);
      }
    }
  }
}
