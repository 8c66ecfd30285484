// Another indx process over the same data folder, for the write-lock tests (test/integration/writes/queue.test.ts).
//   hold <dataDir>: takes the lock file, prints "held", gives it back when a line arrives on stdin, prints "released".
//   queue <dataDir> <log> <writers> <ms>: once a line arrives on stdin, writers through its own WriterQueue, each logging "c<i>+" and "c<i>-" around a pause.
//   legacy <dataDir> <log>: once a line arrives on stdin, takes the file as an indx before the queue did (polls every 10 ms and says nothing), logs once, releases.
import { appendFileSync, closeSync, openSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { VaultWriteLock } from "../../src/writes/lock.ts";
import { WriterQueue } from "../../src/writes/queue.ts";

const [mode = "", dataDir = "", log = "", writers = "1", ms = "0"] = process.argv.slice(2);
const say = (line: string) => process.stdout.write(`${line}\n`);

if (mode === "hold") {
  const lock = new VaultWriteLock(dataDir);
  while (!lock.tryAcquire()) await Bun.sleep(5);
  say("held");
  for await (const _ of console) break;
  lock.release();
  say("released");
} else if (mode === "queue") {
  const queue = new WriterQueue(new VaultWriteLock(dataDir));
  say("ready");
  for await (const _ of console) break;
  await Promise.all(
    Array.from({ length: Number(writers) }, (_, i) =>
      queue.run(async () => {
        appendFileSync(log, `c${i}+\n`);
        await Bun.sleep(Number(ms));
        appendFileSync(log, `c${i}-\n`);
      }),
    ),
  );
  say("done");
} else if (mode === "legacy") {
  const file = join(dataDir, "write.lock");
  say("ready");
  for await (const _ of console) break;
  for (;;) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch {
      await Bun.sleep(10);
    }
  }
  appendFileSync(log, "legacy+\nlegacy-\n");
  unlinkSync(file);
  say("done");
} else throw new Error(`unknown mode ${mode}`);
