import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PathLocks, VaultWriteLock } from "../../../src/writes/lock.ts";
import { WriterQueue } from "../../../src/writes/queue.ts";

const root = mkdtempSync(join(tmpdir(), "indx-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** A fresh data folder per test, so no lock file leaks from one into the next. */
const dataDir = () => mkdtempSync(join(root, `d${n++}-`));
const code = (e: unknown) => (e as { code?: string }).code;
const reason = (e: unknown) => (e as { details?: { reason?: string } }).details?.reason;

describe("the lock file (one writer across processes)", () => {
  test("a live owner is waited for, then the write gives up with rate_limited vault_locked", async () => {
    const dir = dataDir();
    const owner = Bun.spawn(["sleep", "5"]);
    writeFileSync(join(dir, "write.lock"), String(owner.pid));
    let ran = false;
    const err = await new WriterQueue(new VaultWriteLock(dir), { maxWaitMs: 200 })
      .run(() => {
        ran = true;
      })
      .catch((e) => e);
    owner.kill();
    await owner.exited;
    expect(ran).toBe(false);
    expect(code(err)).toBe("rate_limited");
    expect(reason(err)).toBe("vault_locked");
    // While it waited it said so, for the owner to hand over; it took the notice back when it gave up.
    expect(existsSync(join(dir, "write.lock.wait"))).toBe(false);
  });

  test("a lock whose owner died (SIGKILL leaves it behind) is taken over, and released once the queue drains", async () => {
    const dir = dataDir();
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    writeFileSync(join(dir, "write.lock"), String(dead.pid));
    expect(await new WriterQueue(new VaultWriteLock(dir)).run(() => 42)).toBe(42);
    expect(existsSync(join(dir, "write.lock"))).toBe(false);
  });
});

describe("WriterQueue (the writers of one process)", () => {
  test("writers run one at a time in the order they asked, whatever each one takes", async () => {
    const queue = new WriterQueue(new VaultWriteLock(dataDir()));
    const order: number[] = [];
    let running = 0;
    let overlapped = false;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        queue.run(async () => {
          overlapped ||= running > 0;
          running++;
          await Bun.sleep((i * 7) % 5);
          order.push(i);
          running--;
        }),
      ),
    );
    expect(overlapped).toBe(false);
    expect(order).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  test("a run of writers keeps the lock file between turns and gives it back when the queue drains", async () => {
    const dir = dataDir();
    const queue = new WriterQueue(new VaultWriteLock(dir));
    const held: boolean[] = [];
    await Promise.all(Array.from({ length: 5 }, () => queue.run(() => void held.push(existsSync(join(dir, "write.lock"))))));
    expect(held).toEqual([true, true, true, true, true]);
    expect(existsSync(join(dir, "write.lock"))).toBe(false);
  });

  test("a writer that asks while the writes before it are being indexed goes at once; the lock file goes back once they are indexed, before the last caller hears", async () => {
    const dir = dataDir();
    const lockFile = join(dir, "write.lock");
    // The index pass of the writes so far (beforeRelease), held open until the test ends it.
    const indexing = Promise.withResolvers<void>();
    const queue = new WriterQueue(new VaultWriteLock(dir), {}, () => indexing.promise);
    const order: string[] = [];
    const first = queue.run(() => void order.push("first"));
    while (!order.includes("first")) await Bun.sleep(1);
    // The first writer has run and its writes are not indexed yet: the next one does not wait for that.
    const second = queue.run(() => void order.push(`second, lock file held: ${existsSync(lockFile)}`)).then(() => existsSync(lockFile));
    for (let i = 0; i < 200 && order.length < 2; i++) await Bun.sleep(1);
    order.push("indexed");
    indexing.resolve();
    await first;
    expect(order).toEqual(["first", "second, lock file held: true", "indexed"]);
    // The last caller hears its answer after the lock file went back.
    expect(await second).toBe(false);
  });

  test("a writer whose caller aborts leaves the queue: it never runs, the others keep their order, the queue stays usable", async () => {
    const queue = new WriterQueue(new VaultWriteLock(dataDir()));
    const order: string[] = [];
    const gate = Promise.withResolvers<void>();
    const began = Promise.withResolvers<void>();
    const first = queue.run(async () => {
      began.resolve();
      await gate.promise;
      order.push("first");
    });
    await began.promise;
    const aborter = new AbortController();
    const aborted = queue.run(() => void order.push("aborted"), aborter.signal).catch((e) => e);
    const last = queue.run(() => void order.push("last"));
    expect(queue.length).toBe(2);
    aborter.abort();
    const err = await aborted;
    expect(code(err)).toBe("cancelled");
    expect(queue.length).toBe(1);
    gate.resolve();
    await Promise.all([first, last]);
    expect(order).toEqual(["first", "last"]);
    expect(queue.length).toBe(0);
    expect(await queue.run(() => "again")).toBe("again");
  });

  test("an abort after the writer began does not stop it; a signal aborted already never queues", async () => {
    const queue = new WriterQueue(new VaultWriteLock(dataDir()));
    const aborter = new AbortController();
    const done = queue.run(async () => {
      aborter.abort();
      await Bun.sleep(5);
      return "written";
    }, aborter.signal);
    expect(await done).toBe("written");
    expect(code(await queue.run(() => "no", aborter.signal).catch((e) => e))).toBe("cancelled");
  });

  test("past maxWaiting a writer is refused at once (write_queue_full); a wait longer than maxWaitMs is rate_limited write_queue, and the queue goes on", async () => {
    const queue = new WriterQueue(new VaultWriteLock(dataDir()), { maxWaiting: 2, maxWaitMs: 150 });
    const gate = Promise.withResolvers<void>();
    const ran: string[] = [];
    const began = Promise.withResolvers<void>();
    const head = queue.run(async () => {
      began.resolve();
      await gate.promise;
      ran.push("head");
    });
    await began.promise;
    const second = queue.run(() => void ran.push("second")).catch((e) => e);
    const third = queue.run(() => void ran.push("third")).catch((e) => e);
    const full = await queue.run(() => void ran.push("fourth")).catch((e) => e);
    expect(code(full)).toBe("rate_limited");
    expect(reason(full)).toBe("write_queue_full");
    // The head holds its turn well past the others' limit.
    const [e2, e3] = await Promise.all([second, third]);
    expect([reason(e2), reason(e3)]).toEqual(["write_queue", "write_queue"]);
    gate.resolve();
    await head;
    expect(await queue.run(() => "after")).toBe("after");
    expect(ran).toEqual(["head"]);
  });
});

describe("PathLocks", () => {
  test("same path queues in arrival order; other paths do not wait", async () => {
    const locks = new PathLocks();
    const order: string[] = [];
    await Promise.all([
      locks.run(["A.md"], async () => {
        await Bun.sleep(30);
        order.push("A1");
      }),
      locks.run(["a.md"], () => void order.push("A2")), // case-insensitive file systems: same file
      locks.run(["B.md"], () => void order.push("B")),
    ]);
    expect(order).toEqual(["B", "A1", "A2"]);
  });

  test("a wait for a path ends when its signal aborts, and the writers behind it still get the path", async () => {
    const locks = new PathLocks();
    const order: string[] = [];
    const gate = Promise.withResolvers<void>();
    const began = Promise.withResolvers<void>();
    const first = locks.run(["A.md", "B.md"], async () => {
      began.resolve();
      await gate.promise;
      order.push("first");
    });
    await began.promise;
    const aborter = new AbortController();
    const aborted = locks.run(["B.md"], () => void order.push("aborted"), aborter.signal).catch((e) => e);
    const last = locks.run(["b.md"], () => void order.push("last"));
    aborter.abort();
    expect(code(await aborted)).toBe("cancelled");
    gate.resolve();
    await Promise.all([first, last]);
    expect(order).toEqual(["first", "last"]);
  });
});
