import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../../src/app/context.ts";
import { noteMove } from "../../../src/notes/move-ops.ts";
import { notePatch, noteWrite } from "../../../src/notes/write-ops.ts";
import { VaultWriteLock } from "../../../src/writes/lock.ts";
import { WriterQueue } from "../../../src/writes/queue.ts";
import { indexRows } from "../../support/index-rows.ts";
import { invoke } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

let sb: Sandbox;
let ctx: App;

afterEach(() => {
  ctx?.close();
  sb?.cleanup();
});

async function setup(notes: number): Promise<App> {
  const files: Record<string, string> = {};
  for (let i = 0; i < notes; i++) files[`Notes/n${i}.md`] = `# Note ${i}\n\nwords of note ${i}\n`;
  sb = sandbox(files);
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
  return ctx;
}

describe('writers of one process take turns in a queue (docs/decisions.md, "One queue of writers per vault")', () => {
  test("30 clients writing back to back through one App: every write lands, none is busy, and turns go round", async () => {
    const CLIENTS = 30;
    const ROUNDS = 3;
    await setup(CLIENTS);
    // Which client's which round reached the disk, in the order the writes committed.
    const committed: { client: number; round: number }[] = [];
    const stopWatching = ctx.events.subscribe((e) => {
      if (e.kind !== "note.updated" || !e.path) return;
      const m = /^Notes\/n(\d+)\.md$/.exec(e.path);
      if (m) committed.push({ client: Number(m[1]), round: committed.filter((c) => c.client === Number(m[1])).length + 1 });
    });
    const failures: string[] = [];
    const client = async (i: number) => {
      for (let round = 1; round <= ROUNDS; round++) {
        try {
          await invoke(notePatch, ctx, { path: `Notes/n${i}.md`, ops: [{ op: "append_body", markdown: `round ${round}\n` }] });
        } catch (err) {
          failures.push(`client ${i} round ${round}: ${(err as { code?: string }).code} ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
    stopWatching();
    expect(failures).toEqual([]);
    for (let i = 0; i < CLIENTS; i++) expect(readFileSync(join(sb.vault, `Notes/n${i}.md`), "utf8")).toEndWith("round 1\nround 2\nround 3\n");
    // Fair turns: a client's next write queues behind every write already waiting, so no client
    // writes its round 2 before every client has written its round 1 (a client that takes the
    // lock again at once, as a poller of the lock file could, would write all its rounds first).
    const rounds = committed.map((c) => c.round);
    expect(rounds).toEqual([...rounds].sort((a, b) => a - b));
    expect(committed.length).toBe(CLIENTS * ROUNDS);
  }, 60_000);

  test("with reindexes shared between writes, each answer still reads what it wrote, and events follow the order writes landed", async () => {
    await setup(10);
    ctx.useIndexWorker();
    const announced: { path: string; etag: string }[] = [];
    const stop = ctx.events.subscribe((e) => {
      if (e.kind === "note.updated" && e.etag && e.path) announced.push({ path: e.path, etag: e.etag });
    });
    // The order the writes took their turns (each stages its bytes inside its turn).
    const turns: string[] = [];
    const stopHook = ctx.writer.onStaged((paths) => turns.push(...paths));
    const stale: string[] = [];
    const answered: string[] = [];
    const client = async (i: number) => {
      for (let round = 0; round < 3; round++) {
        const out = (await invoke(notePatch, ctx, { path: `Notes/n${i}.md`, ops: [{ op: "append_body", markdown: `r${round}\n` }] })) as { etag: string };
        answered.push(out.etag);
        const indexed = indexRows<{ etag: string }>(ctx, "SELECT etag FROM files WHERE path = ?", `Notes/n${i}.md`)[0]?.etag;
        if (indexed !== out.etag) stale.push(`n${i} round ${round}`);
      }
    };
    await Promise.all(Array.from({ length: 10 }, (_, i) => client(i)));
    stop();
    stopHook();
    expect(stale).toEqual([]);
    // One event per write, with the etag its caller got, in the order the writes took their turns.
    expect(new Set(announced.map((e) => e.etag))).toEqual(new Set(answered));
    expect(announced.map((e) => e.path)).toEqual(turns);
  }, 60_000);

  test("a write whose plan reads the index, queued behind writes not indexed yet, plans from an index that has them", async () => {
    await setup(20);
    sb.write("Target.md", "# Target\n");
    await ctx.updateIndex({ full: true });
    // Reindexing in the index worker, as under `serve`: a write's reindex is still running when the next write plans.
    ctx.useIndexWorker();
    const links = Array.from({ length: 20 }, (_, i) =>
      invoke(noteWrite, ctx, { path: `Links/l${i}.md`, body: `# Link ${i}\n\nSee [[Target]].\n`, if_not_exists: true }),
    );
    const move = invoke(noteMove, ctx, { from: "Target.md", to: "Renamed.md" });
    await Promise.all([...links, move]);
    // Every note written before the move was queued links to the moved note by its new path.
    for (let i = 0; i < 20; i++) expect(readFileSync(join(sb.vault, `Links/l${i}.md`), "utf8")).toContain("[[Renamed]]");
  }, 60_000);
});

const LOCK_PROCESS = join(import.meta.dir, "../../support/lock-process.ts");

/** Another process over the sandbox's data folder (test/support/lock-process.ts), with a way to read its lines. */
function otherProcess(...args: string[]) {
  const child = Bun.spawn([process.execPath, LOCK_PROCESS, ...args], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let buffered = "";
  return {
    child,
    /** A line on its stdin: "go on". */
    go() {
      child.stdin.write("go\n");
      child.stdin.flush();
    },
    /** Resolves when the process prints `line`. */
    async saw(line: string): Promise<void> {
      while (!buffered.split("\n").includes(line)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the other process ended before printing ${line}`);
        buffered += new TextDecoder().decode(value);
      }
    },
  };
}

/**
 * The other process's turns in the shared log (`c<i>+` … `c<i>-`): how many, whether a line of
 * ours falls inside one, and how many of the gaps between two of its turns hold a write of ours.
 */
function othersTurns(log: string): { turns: number; oursInside: boolean; gapsWithOurs: number } {
  let inside = false;
  let turns = 0;
  let oursInside = false;
  let oursSinceTurn = false;
  let gapsWithOurs = 0;
  for (const line of log.split("\n").filter(Boolean)) {
    if (line.endsWith("+")) {
      if (turns > 0 && oursSinceTurn) gapsWithOurs++;
      inside = true;
      turns++;
    } else if (line.endsWith("-")) {
      inside = false;
      oursSinceTurn = false;
    } else if (inside) oursInside = true;
    else oursSinceTurn = true;
  }
  return { turns, oursInside, gapsWithOurs };
}

describe("the lock file still keeps one writer across processes", () => {
  test("another process holding the lock holds our write back until it lets go; then the write lands", async () => {
    await setup(1);
    const other = otherProcess("hold", sb.dataDir);
    try {
      await other.saw("held");
      let settled = false;
      const write = invoke(notePatch, ctx, { path: "Notes/n0.md", ops: [{ op: "append_body", markdown: "after the other\n" }] }).finally(
        () => (settled = true),
      );
      await Bun.sleep(300);
      expect(settled).toBe(false);
      expect(readFileSync(join(sb.vault, "Notes/n0.md"), "utf8")).not.toContain("after the other");
      other.go();
      await write;
      expect(readFileSync(join(sb.vault, "Notes/n0.md"), "utf8")).toEndWith("after the other\n");
      await other.saw("released");
    } finally {
      other.child.kill();
      await other.child.exited;
    }
  }, 60_000);

  test("a write whose caller cancels while it waits leaves the queue: it never lands, and the writes behind it do", async () => {
    await setup(2);
    const other = otherProcess("hold", sb.dataDir);
    try {
      await other.saw("held");
      const aborter = new AbortController();
      const cancelled = invoke(notePatch, ctx.forCall({ signal: aborter.signal }), {
        path: "Notes/n0.md",
        ops: [{ op: "append_body", markdown: "cancelled\n" }],
      }).catch((e) => e);
      const behind = invoke(notePatch, ctx, { path: "Notes/n1.md", ops: [{ op: "append_body", markdown: "behind\n" }] });
      await Bun.sleep(50);
      aborter.abort();
      expect((await cancelled).code).toBe("cancelled");
      other.go();
      await behind;
      expect(readFileSync(join(sb.vault, "Notes/n0.md"), "utf8")).not.toContain("cancelled");
      expect(readFileSync(join(sb.vault, "Notes/n1.md"), "utf8")).toEndWith("behind\n");
      // The queue is whole: the next write goes at once.
      await invoke(notePatch, ctx, { path: "Notes/n0.md", ops: [{ op: "append_body", markdown: "next\n" }] });
      expect(readFileSync(join(sb.vault, "Notes/n0.md"), "utf8")).toEndWith("words of note 0\nnext\n");
    } finally {
      other.child.kill();
      await other.child.exited;
    }
  }, 60_000);

  test("under a steady stream of our writes, another process that waits gets its turns while ours go on, and no two overlap", async () => {
    await setup(10);
    const log = join(sb.dir, "turns.log");
    writeFileSync(log, "");
    // A point inside each of our writes' locks: it must never fall inside one of the other's turns.
    const stopHook = ctx.writer.onStaged(() => appendFileSync(log, "ours\n"));
    const other = otherProcess("queue", sb.dataDir, log, "5", "20");
    let otherDone = false;
    const failures: string[] = [];
    let ours = 0;
    try {
      await other.saw("ready");
      const finished = other.saw("done").then(() => (otherDone = true));
      // Ten clients write back to back until the other process is done (or far too long has passed).
      const client = async (i: number) => {
        for (let round = 0; !otherDone && ours < 3000; round++) {
          try {
            await invoke(notePatch, ctx, { path: `Notes/n${i}.md`, ops: [{ op: "append_body", markdown: `r${round}\n` }] });
            ours++;
          } catch (err) {
            failures.push(`${(err as { code?: string }).code}`);
          }
        }
      };
      const clients = Promise.all(Array.from({ length: 10 }, (_, i) => client(i)));
      // The other process starts asking once ours are under way.
      while (ours < 20) await Bun.sleep(1);
      other.go();
      await clients;
      await finished;
    } finally {
      stopHook();
      other.child.kill();
      await other.child.exited;
    }
    expect(failures).toEqual([]);
    expect(otherDone).toBe(true);
    expect(ours).toBeLessThan(3000);
    // Five turns, none overlapping one of ours, and between each two of them a write of ours: each
    // side, holding a run, hands the file over at its next turn once the other says it waits.
    expect(othersTurns(readFileSync(log, "utf8"))).toEqual({ turns: 5, oursInside: false, gapsWithOurs: 4 });
  }, 60_000);

  test("an older indx that only polls the file (no waiting notice) still gets in within a time slice", async () => {
    await setup(0);
    const log = join(sb.dir, "turns.log");
    writeFileSync(log, "");
    const queue = new WriterQueue(new VaultWriteLock(sb.dataDir), { sliceMs: 100 });
    const other = otherProcess("legacy", sb.dataDir, log);
    let otherDone = false;
    let ours = 0;
    try {
      await other.saw("ready");
      const finished = other.saw("done").then(() => (otherDone = true));
      // Four writers always queued: the queue never drains while the older process waits.
      const writer = async () => {
        while (!otherDone && ours < 2000)
          await queue.run(async () => {
            appendFileSync(log, "ours\n");
            await Bun.sleep(2);
            ours++;
          });
      };
      const writers = Promise.all([writer(), writer(), writer(), writer()]);
      while (ours < 20) await Bun.sleep(1);
      other.go();
      await writers;
      await finished;
    } finally {
      other.child.kill();
      await other.child.exited;
    }
    expect(otherDone).toBe(true);
    expect(ours).toBeLessThan(2000);
    expect(readFileSync(log, "utf8")).toContain("legacy+\nlegacy-\n");
  }, 60_000);
});
