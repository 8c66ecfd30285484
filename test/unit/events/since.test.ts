import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventHub } from "../../../src/events/hub.ts";
import { EventLog } from "../../../src/events/log.ts";
import { eventsAfter } from "../../../src/events/since.ts";
import type { VaultEvent } from "../../../src/events/types.ts";

/** Where a resumed subscriptions/listen stream starts: the shared events.log, read from disk (docs/mcp.md). */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function logDir(): string {
  const d = mkdtempSync(join(tmpdir(), "indx-since-"));
  dirs.push(d);
  return d;
}

const line = (id: string, time: string, path: string): string =>
  `${JSON.stringify({ id, time, kind: "note.updated", source: "indx", path } satisfies VaultEvent)}\n`;

describe("eventsAfter", () => {
  test("the events of every process after an id, in log order, across the rotated files", () => {
    const dir = logDir();
    const file = join(dir, "events.log");
    writeFileSync(`${file}.1`, line("1000-aaaa-1", "2026-01-01T00:00:00.000Z", "A.md") + line("1001-aaaa-2", "2026-01-01T00:00:01.000Z", "B.md"));
    writeFileSync(file, line("1002-bbbb-1", "2026-01-01T00:00:10.000Z", "C.md") + line("1003-aaaa-3", "2026-01-01T00:00:11.000Z", "D.md"));
    const after = eventsAfter(file, "1001-aaaa-2");
    expect(after.found).toBe(true);
    expect(after.events.map((e) => e.path)).toEqual(["C.md", "D.md"]);
  });

  test("another process's events written just before the id come too (it may have been followed late); its own do not", () => {
    const dir = logDir();
    const file = join(dir, "events.log");
    writeFileSync(
      file,
      line("1-aaaa-1", "2026-01-01T00:00:00.000Z", "old.md") +
        line("2-bbbb-1", "2026-01-01T00:00:09.500Z", "other.md") +
        line("3-aaaa-2", "2026-01-01T00:00:09.800Z", "own.md") +
        line("4-aaaa-3", "2026-01-01T00:00:10.000Z", "seen.md") +
        line("5-aaaa-4", "2026-01-01T00:00:12.000Z", "new.md"),
    );
    expect(eventsAfter(file, "4-aaaa-3").events.map((e) => e.path)).toEqual(["other.md", "new.md"]);
  });

  test("an id the log does not hold (rotated away, or made up) is not found; a torn last line is skipped", () => {
    const dir = logDir();
    const file = join(dir, "events.log");
    writeFileSync(file, `${line("1-aaaa-1", "2026-01-01T00:00:00.000Z", "A.md")}{"id":"2-aaaa-2","ti`);
    expect(eventsAfter(file, "0-zzzz-0")).toEqual({ found: false, events: [] });
    expect(eventsAfter(file, "1-aaaa-1")).toEqual({ found: true, events: [] });
    expect(eventsAfter(join(dir, "missing.log"), "1-aaaa-1").found).toBe(false);
  });

  test("the hub answers for the log it writes, and its position moves with every event", () => {
    const hub = new EventHub(new EventLog(logDir()));
    const start = hub.position();
    const first = hub.emit({ kind: "note.created", source: "indx", path: "A.md" });
    expect(hub.position()).toBeGreaterThan(start);
    hub.emit({ kind: "note.updated", source: "indx", path: "A.md" });
    expect(hub.after(first.id).events.map((e) => e.kind)).toEqual(["note.updated"]);
    expect(new EventHub(null).after(first.id).found).toBe(false);
  });
});
