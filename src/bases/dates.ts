/**
 * Dates and durations of the Bases language, in local time as Obsidian (moment.js) computes
 * them: calendar units (years, months, weeks, days) move the wall clock, so `date + "1d"` across a
 * daylight-saving change lands on the same time of day; hours, minutes and seconds are exact.
 */
import { wallTimeAt } from "../dates/calendar.ts";
import { formatMoment } from "../dates/moment-format.ts";
import { DateValue, DurationValue } from "./values.ts";

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * An ISO 8601 date or date-time (`2025-12-31`, `2025-12-31T23:59`, `2025-12-31 23:59:59`, with an
 * optional zone `Z`, `+02:00`, `-07`) → a DateValue; null when the text is not one. Without a
 * zone the time is local.
 */
export function parseDate(text: string): DateValue | null {
  // Filters compare every row with the same literal ("date > '2025-01-01'"): parse each text once.
  const known = parsed.get(text);
  if (known !== undefined) return known;
  const value = parseDateText(text);
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(text, value);
  return value;
}

const parsed = new Map<string, DateValue | null>();
const PARSED_MAX = 10_000;

/**
 * parseDate without its cache, for texts read once: a frontmatter value while indexing is a slice
 * of its note's text, and a cache entry keyed by it keeps that whole text alive (10,000 notes'
 * texts, 100+ MB of a large build's peak memory).
 */
export function parseDateText(text: string): DateValue | null {
  const m = DATE_RE.exec(text.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  if (m[4] === undefined) {
    const d = new Date(year, month - 1, day);
    return d.getDate() === day ? new DateValue(d.getTime(), false) : null;
  }
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  const milli = Number((m[7] ?? "0").padEnd(3, "0"));
  if (hour > 23 || minute > 59 || second > 59) return null;
  const zone = m[8];
  if (zone === undefined) return new DateValue(new Date(year, month - 1, day, hour, minute, second, milli).getTime(), true);
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, milli);
  return new DateValue(utc - zoneOffsetMinutes(zone) * 60_000, true);
}

function zoneOffsetMinutes(zone: string): number {
  if (zone === "Z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0));
}

const UNITS: Record<string, "y" | "M" | "w" | "d" | "h" | "m" | "s" | "ms"> = {
  y: "y",
  year: "y",
  years: "y",
  M: "M",
  month: "M",
  months: "M",
  w: "w",
  week: "w",
  weeks: "w",
  d: "d",
  day: "d",
  days: "d",
  h: "h",
  hour: "h",
  hours: "h",
  m: "m",
  minute: "m",
  minutes: "m",
  s: "s",
  second: "s",
  seconds: "s",
  ms: "ms",
  millisecond: "ms",
  milliseconds: "ms",
};

const EXACT_MS = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;

/**
 * A duration string → a DurationValue; null when it is not one. Parts are a number and a unit
 * (`1M`, `2h`, `7 days`, `1y 2M`); `M` is month and `m` minute, so units are case-sensitive
 * except for the spelled-out names.
 */
export function parseDuration(text: string): DurationValue | null {
  const t = text.trim();
  if (!t) return null;
  let months = 0;
  let days = 0;
  let ms = 0;
  const re = /([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]+)[\s,]*/y;
  let at = 0;
  while (at < t.length) {
    re.lastIndex = at;
    const m = re.exec(t);
    const word = m?.[2];
    if (!m || word === undefined) return null;
    const n = Number(m[1]);
    const unit = UNITS[word] ?? (word.length > 1 ? UNITS[word.toLowerCase()] : undefined);
    if (!unit) return null;
    if (unit === "y") months += n * 12;
    else if (unit === "M") months += n;
    else if (unit === "w") days += n * 7;
    else if (unit === "d") days += n;
    else ms += n * EXACT_MS[unit];
    at = re.lastIndex;
  }
  return new DurationValue(months, days, ms);
}

/** date + duration (sign -1 subtracts). A month added to Jan 31 is Feb 28/29, as in moment. */
export function addDuration(date: DateValue, d: DurationValue, sign: 1 | -1): DateValue {
  const t = new Date(date.ms);
  if (d.months) {
    const day = t.getDate();
    t.setDate(1);
    t.setMonth(t.getMonth() + sign * d.months);
    t.setDate(Math.min(day, daysInMonth(t.getFullYear(), t.getMonth())));
  }
  if (d.days) t.setDate(t.getDate() + sign * d.days);
  const ms = t.getTime() + sign * d.ms;
  return new DateValue(ms, date.hasTime || d.ms !== 0 || !Number.isInteger(d.days));
}

const daysInMonth = (year: number, month: number) => new Date(year, month + 1, 0).getDate();

/** Local midnight of the day of `ms`. */
export function startOfDay(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** `YYYY-MM-DD` for a date, `YYYY-MM-DDTHH:mm:ss` (local) for a date-time. */
export function isoText(v: DateValue): string {
  return v.hasTime ? formatDate(v.ms, "YYYY-MM-DD[T]HH:mm:ss") : formatDate(v.ms, "YYYY-MM-DD");
}

/** The moment.js format tokens (docs/obsidian.md), in this process's local time as Obsidian computes them. */
export function formatDate(ms: number, format: string): string {
  return formatMoment(wallTimeAt(ms), format);
}

/** moment's fromNow(): "a few seconds ago", "in 3 days", "2 months ago", with moment's thresholds. */
export function relativeTime(ms: number, now: number): string {
  const diff = ms - now;
  const future = diff > 0;
  const sec = Math.round(Math.abs(diff) / 1000);
  const min = Math.round(sec / 60);
  const hours = Math.round(min / 60);
  const days = Math.round(hours / 24);
  const months = Math.round(days / 30.4375);
  const years = Math.round(days / 365.25);
  let text: string;
  if (sec < 45) text = "a few seconds";
  else if (sec < 90) text = "a minute";
  else if (min < 45) text = `${min} minutes`;
  else if (min < 90) text = "an hour";
  else if (hours < 22) text = `${hours} hours`;
  else if (hours < 36) text = "a day";
  else if (days < 26) text = `${days} days`;
  else if (days < 45) text = "a month";
  else if (days < 320) text = `${months} months`;
  else if (days < 548) text = "a year";
  else text = `${years} years`;
  return future ? `in ${text}` : `${text} ago`;
}
