import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config/load.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { startServer } from "../../../src/http/serve.ts";
import { sandbox } from "../../support/vault.ts";

const sb = sandbox();
afterAll(() => sb.cleanup());

const ROUNDS = 120;

test("a REST writer and a CLI-process writer at the same time: every write that lands answers success, never a 500", async () => {
  for (let i = 0; i < 200; i++) sb.write(`Notes/n${i}.md`, `# Note ${i}\n\n#shared words ${i}\n`);
  sb.write("../version-a.txt", `# Target\n\n${"alpha words\n".repeat(200)}`);
  sb.write("../version-b.txt", `# Target\n\n${"bravo words\n".repeat(150)}`);
  const server = await startServer(sb.context({ "index.debounce_ms": 5 }), { host: "127.0.0.1", port: 0, notice: () => {} });
  const key = loadConfig({ env: sb.env }).str("server.api_key")!;
  const other = Bun.spawn([process.execPath, join(import.meta.dir, "../../support/write-loop.ts")], {
    env: { ...sb.env, VERSIONS_DIR: sb.dir },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    await other.stdout.getReader().read(); // "ready"
    const failures: string[] = [];
    for (let i = 0; i < ROUNDS && other.exitCode === null; i++) {
      const path = `Rest/r${i % 10}.md`;
      const body = `# REST ${i}\n\nround ${i} #shared\n`;
      const res = await fetch(`${server.url}/v1/notes/${path}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": `round-${i}` },
        body: JSON.stringify({ body }),
      });
      const answer = (await res.json()) as { data?: { etag: string }; error?: { code: string } };
      if (res.status >= 300) failures.push(`${res.status} ${answer.error?.code}`);
      else expect(answer.data?.etag).toBe(etagOf(readFileSync(join(sb.vault, path))));
    }
    // The other process writes in a loop until killed: if one of its writes failed, it has exited.
    expect(other.exitCode).toBeNull();
    expect(failures).toEqual([]);
  } finally {
    other.kill("SIGKILL");
    await other.exited;
    await server.stop();
  }
  const stderr = await new Response(other.stderr).text();
  expect(stderr).not.toContain("error");
}, 120_000);
