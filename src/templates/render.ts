/**
 * The core Templates plugin's variables, as Obsidian substitutes them (names case-insensitive):
 * `{{title}}`, `{{date}}` and `{{time}}` in the configured formats, `{{date:FORMAT}}` and
 * `{{time:FORMAT}}` in moment.js formats. Daily and periodic notes add what Obsidian's daily
 * notes do: an offset (`{{date+1d}}`, `{{date-2w:YYYY-MM-DD}}`), `{{yesterday}}`, `{{tomorrow}}`
 * and, for weeks, the days of the note's week (`{{monday:YYYY-MM-DD}}`). Anything else is left as
 * written, as Obsidian leaves it.
 */
import { shiftWallTime, startOfWeek, type WallTime, type WeekRule } from "../dates/calendar.ts";
import { formatMoment } from "../dates/moment-format.ts";

export interface TemplateValues {
  title: string;
  /** The note's moment: now for a plain note, the day (at the current time of day) for a daily note. */
  date: WallTime;
  dateFormat: string;
  timeFormat: string;
  /** Periodic notes only: the week the `{{monday:…}}` variables name days of. */
  week?: WeekRule;
}

const VARIABLE = /{{\s*([a-z]+)\s*(?:([+-]\d{1,4})\s*([yqmwdhs]))?\s*(?::(.*?))?\s*}}/gi;
const DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
type Unit = Parameters<typeof shiftWallTime>[2];

export function renderTemplate(text: string, v: TemplateValues): string {
  return text.replace(VARIABLE, (whole, rawName: string, delta: string | undefined, unit: string | undefined, format: string | undefined) => {
    const name = rawName.toLowerCase();
    const fmt = format?.trim() || undefined;
    if (name === "title") return delta || fmt ? whole : v.title;
    if (name === "date" || name === "time") {
      const when = delta && unit ? shiftWallTime(v.date, Number(delta), momentUnit(unit)) : v.date;
      return formatMoment(when, fmt ?? (name === "date" ? v.dateFormat : v.timeFormat));
    }
    if (delta) return whole;
    if (name === "yesterday" || name === "tomorrow") return fmt ? whole : formatMoment(shiftWallTime(v.date, name === "yesterday" ? -1 : 1, "d"), v.dateFormat);
    const day = DAYS.indexOf(name);
    if (day >= 0 && v.week) {
      const start = startOfWeek(v.date, v.week);
      return formatMoment(shiftWallTime(start, (day - v.week.dow + 7) % 7, "d"), fmt ?? v.dateFormat);
    }
    return whole;
  });
}

/** moment's unit letters: `M` is months and `m` minutes; the others are case-insensitive. */
const UNITS: Record<string, Unit> = { y: "y", q: "q", M: "M", m: "m", w: "w", d: "d", h: "h", s: "s" };
const momentUnit = (letter: string): Unit => UNITS[letter] ?? UNITS[letter.toLowerCase()] ?? "d";
