import { readFileSync } from "node:fs";
import type { VaultEvent } from "./types.ts";

/** The rotated files first (oldest, events.log.3), then events.log: the shared log in the order it was written. */
const ROTATED = [3, 2, 1];

/** How far a process may lag behind another's events: its follower polls every 200 ms (follow.ts). */
const FOLLOW_LAG_MS = 2000;

export interface EventsAfter {
  /** False when `id` is no longer in the log (rotated away) or never was: the gap is unknown. */
  found: boolean;
  events: VaultEvent[];
}

/**
 * The vault events written to the shared log after the one with this id, read from disk so that
 * any indx process answers for every other (docs/mcp.md, subscriptions/listen). A process delivers
 * another's events up to a poll late, so events of other processes written shortly before `id`
 * are included as well: a resumed stream may hear of a change twice, never miss one.
 */
export function eventsAfter(file: string, id: string): EventsAfter {
  const all: VaultEvent[] = [];
  for (const path of [...ROTATED.map((n) => `${file}.${n}`), file]) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try {
        all.push(JSON.parse(line) as VaultEvent);
      } catch {}
    }
  }
  const at = all.findIndex((e) => e.id === id);
  if (at < 0) return { found: false, events: [] };
  const tag = tagOf(id);
  const since = Date.parse(all[at]?.time ?? "") - FOLLOW_LAG_MS;
  const before = all.slice(0, at).filter((e) => tagOf(e.id) !== tag && Date.parse(e.time) >= since);
  return { found: true, events: [...before, ...all.slice(at + 1)] };
}

/** The writing process's tag in an event id (`<unix ms>-<tag>-<sequence>`). */
function tagOf(id: string): string {
  return id.split("-")[1] ?? "";
}
