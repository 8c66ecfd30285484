import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PathLocks, VaultWriteLock } from "../../../src/writes/lock.ts";

const dir = mkdtempSync(join(tmpdir(), "indx-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("VaultWriteLock (one writer across processes)", () => {
  test("waits for a live owner, then gives up with rate_limited", async () => {
    const owner = Bun.spawn(["sleep", "5"]);
    writeFileSync(join(dir, "write.lock"), String(owner.pid));
    let ran = false;
    const err = await new VaultWriteLock(dir, 200)
      .run(() => {
        ran = true;
      })
      .catch((e) => e);
    owner.kill();
    await owner.exited;
    expect(ran).toBe(false);
    expect(err.code).toBe("rate_limited");
  });

  test("takes over a lock whose owner died (SIGKILL leaves it behind) and releases it after", async () => {
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    writeFileSync(join(dir, "write.lock"), String(dead.pid));
    const value = await new VaultWriteLock(dir, 2000).run(() => 42);
    expect(value).toBe(42);
    expect(existsSync(join(dir, "write.lock"))).toBe(false);
  });

  test("a caller in the same process waits its turn", async () => {
    const lock = new VaultWriteLock(dir, 2000);
    const order: string[] = [];
    await Promise.all([
      lock.run(async () => {
        order.push("a:start");
        await Bun.sleep(30);
        order.push("a:end");
      }),
      lock.run(() => void order.push("b")),
    ]);
    expect(order).toEqual(["a:start", "a:end", "b"]);
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
});
