import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../../src/app/context.ts";
import { notePatch } from "../../../src/notes/write-ops.ts";
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
});
