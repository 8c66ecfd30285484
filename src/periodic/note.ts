import { IndxError } from "../core/errors.ts";
import { assertTimeZone, parseIsoDay, startOfWeek, type WallTime, wallTimeAt, withFields } from "../dates/calendar.ts";
import { formatMoment } from "../dates/moment-format.ts";
import { renderTemplate } from "../templates/render.ts";
import { findTemplate, readTemplateSettings, type Template } from "../templates/settings.ts";
import type { Vault } from "../vault/vault.ts";
import { type Period, type PeriodSettings, readPeriodSettings, weekRuleOf } from "./settings.ts";

/** The note of one period: where it lives and the moment it starts (at the current time of day). */
export interface PeriodicNote {
  path: string;
  /** The period's first day, at the time of day it is now (what `{{time}}` shows). */
  start: WallTime;
  settings: PeriodSettings;
}

export interface PeriodicNoteRequest {
  period: Period;
  /** YYYY-MM-DD; today (in `tz`) when absent. */
  date?: string;
  /** IANA time zone for "today" and `{{time}}`; this process's local zone when absent. */
  tz?: string;
  /** The current instant, for tests and for one consistent "now" across a call. */
  now?: number;
}

/** Where the note of `period` holding `date` lives, by the vault's settings. */
export function periodicNote(vault: Vault, req: PeriodicNoteRequest): PeriodicNote {
  if (req.tz !== undefined) assertTimeZone(req.tz);
  const now = wallTimeAt(req.now ?? Date.now(), req.tz);
  let day = now;
  if (req.date !== undefined) {
    const fields = parseIsoDay(req.date);
    if (!fields) throw new IndxError("validation_failed", "date must be a calendar day YYYY-MM-DD.", { field: "date" });
    day = withFields(now, fields);
  }
  const settings = readPeriodSettings(vault.root, req.period);
  const start = periodStart(day, settings);
  const name = formatMoment(start, settings.format);
  const path = vault.safePath(`${settings.folder ? `${settings.folder}/` : ""}${name}.md`, "path");
  return { path, start, settings };
}

function periodStart(day: WallTime, s: PeriodSettings): WallTime {
  switch (s.period) {
    case "daily":
      return day;
    case "weekly": {
      const start = startOfWeek(day, weekRuleOf(s.format));
      return withFields(start, { hour: day.hour, minute: day.minute, second: day.second, millisecond: day.millisecond });
    }
    case "monthly":
      return withFields(day, { day: 1 });
    case "quarterly":
      return withFields(day, { month: day.month - ((day.month - 1) % 3), day: 1 });
    case "yearly":
      return withFields(day, { month: 1, day: 1 });
  }
}

/**
 * The text a new periodic note starts with: its template with the variables filled in (`{{date}}`
 * and `{{title}}` are the note's name, as Obsidian's daily notes write them), or "" without one.
 * `template` is null when none is configured, or the one configured and not found (`missing`).
 */
export function periodicNoteText(vault: Vault, note: PeriodicNote): { text: string; template: Template | null; missing: string | null } {
  const configured = note.settings.template;
  if (!configured) return { text: "", template: null, missing: null };
  const templates = readTemplateSettings(vault.root);
  const template = findTemplate(vault, configured, templates.folder);
  if (!template) return { text: "", template: null, missing: configured };
  const title = note.path.slice(note.path.lastIndexOf("/") + 1, -3);
  const text = renderTemplate(template.text, {
    title,
    date: note.start,
    dateFormat: note.settings.format,
    timeFormat: templates.timeFormat,
    week: weekRuleOf(note.settings.format),
  });
  return { text, template, missing: null };
}
