import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { VaultWriteLock } from "../../src/writes/lock.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

let sb: Sandbox;
let server: RunningServer | undefined;
let held: VaultWriteLock | undefined;

afterEach(async () => {
  held?.release();
  await server?.stop();
  sb?.cleanup();
});

/** How many PATCH requests the server has answered with this status so far (its own /metrics). */
async function patchesAnswered(url: string, headers: Record<string, string>, status: number): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  const line = text.split("\n").find((l) => l.startsWith(`indx_http_requests_total{route="PATCH /v1/notes/{path}",method="PATCH",status="${status}"}`));
  return line ? Number(line.split(" ").pop()) : 0;
}

test('a REST write whose client hangs up while it waits for its turn leaves the queue as cancelled: nothing is written, the writes behind it go (docs/decisions.md, "One queue of writers per vault")', async () => {
  sb = sandbox({ "A.md": "# A\n", "B.md": "# B\n" });
  server = await startServer(sb.context(), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  const key = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
  const auth = { authorization: `Bearer ${key}` };
  const patch = (path: string, line: string, signal?: AbortSignal) =>
    fetch(`${server?.url}/v1/notes/${path}`, {
      method: "PATCH",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ ops: [{ op: "append_body", markdown: `${line}\n` }] }),
      signal,
    });

  // The turn is held: another writer has the vault's lock file, so both writes below queue.
  held = new VaultWriteLock(sb.dataDir);
  expect(held.tryAcquire()).toBe(true);
  const hangUp = new AbortController();
  const gone = patch("A.md", "from a client that hung up", hangUp.signal).catch((e: unknown) => e);
  // The second write queues behind the first (the server answers no write while the turn is held).
  await Bun.sleep(100);
  const behind = patch("B.md", "behind it");
  await Bun.sleep(100);
  hangUp.abort();
  expect(await gone).toBeInstanceOf(Error);
  // The server drops the write as `cancelled` (499) while the turn is still held (waited for up
  // to 5 s; a server that keeps the write queued then writes it once the turn is free, below).
  for (let tries = 0; tries < 250 && (await patchesAnswered(server.url, auth, 499)) === 0; tries++) await Bun.sleep(20);
  expect(await patchesAnswered(server.url, auth, 499)).toBe(1);
  held.release();
  expect((await behind).status).toBe(200);
  expect(readFileSync(join(sb.vault, "B.md"), "utf8")).toEndWith("behind it\n");
  expect(readFileSync(join(sb.vault, "A.md"), "utf8")).toBe("# A\n");
  // The queue is whole: the next write to the note goes at once.
  expect((await patch("A.md", "next")).status).toBe(200);
  expect(readFileSync(join(sb.vault, "A.md"), "utf8")).toBe("# A\nnext\n");
}, 30_000);
