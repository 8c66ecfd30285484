/**
 * Wall-clock time in one time zone, and the calendar arithmetic daily notes need. Every field is
 * what a clock on that wall shows; `epochMs` and `offsetMinutes` say which instant that was, for
 * the format tokens that print the instant (`X`, `x`) or the zone (`Z`, `ZZ`).
 */
import { IndxError } from "../core/errors.ts";

export interface WallTime {
  year: number;
  /** 1–12. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** The zone's offset from UTC at that instant, in minutes (+60 for Central Europe in winter). */
  offsetMinutes: number;
  epochMs: number;
}

const DAY_MS = 86_400_000;

/** The wall time of an instant in `timeZone` (an IANA name), or in this process's zone when none is given. */
export function wallTimeAt(epochMs: number, timeZone?: string): WallTime {
  if (timeZone === undefined) {
    const d = new Date(epochMs);
    return {
      year: d.getFullYear(),
      month: d.getMonth() + 1,
      day: d.getDate(),
      hour: d.getHours(),
      minute: d.getMinutes(),
      second: d.getSeconds(),
      millisecond: d.getMilliseconds(),
      offsetMinutes: -d.getTimezoneOffset(),
      epochMs,
    };
  }
  const parts = new Map(
    zoneFormatter(timeZone)
      .formatToParts(new Date(epochMs))
      .map((p) => [p.type, Number(p.value)]),
  );
  // zoneFormatter asks for every field read here, so the 0 is never used.
  const field = (name: Intl.DateTimeFormatPartTypes) => parts.get(name) ?? 0;
  const t = { year: field("year"), month: field("month"), day: field("day"), hour: field("hour") % 24, minute: field("minute"), second: field("second") };
  const millisecond = ((epochMs % 1000) + 1000) % 1000;
  const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, millisecond);
  return { ...t, millisecond, offsetMinutes: Math.round((asUtc - epochMs) / 60_000), epochMs };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** An IANA time zone name this runtime knows, or validation_failed naming `field`. */
export function assertTimeZone(timeZone: string, field = "tz"): void {
  try {
    zoneFormatter(timeZone);
  } catch {
    throw new IndxError("validation_failed", `${field} must be an IANA time zone such as Europe/Berlin or UTC.`, { field });
  }
}

/** `YYYY-MM-DD` → its fields, or null when it is not a real calendar day. */
export function parseIsoDay(text: string): { year: number; month: number; day: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? { year, month, day } : null;
}

/** The same wall time moved by whole calendar units; a day past the month's end clamps (Jan 31 + 1 month = Feb 28/29), as moment does. */
export function shiftWallTime(t: WallTime, amount: number, unit: "y" | "q" | "M" | "w" | "d" | "h" | "m" | "s"): WallTime {
  if (unit === "y" || unit === "q" || unit === "M") {
    const months = amount * (unit === "y" ? 12 : unit === "q" ? 3 : 1);
    const index = t.year * 12 + (t.month - 1) + months;
    const year = Math.floor(index / 12);
    const month = (index % 12) + 1;
    return withFields(t, { year, month, day: Math.min(t.day, daysInMonth(year, month)) });
  }
  const ms = { w: 7 * DAY_MS, d: DAY_MS, h: 3_600_000, m: 60_000, s: 1000 }[unit] * amount;
  const moved = new Date(Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.millisecond) + ms);
  return withFields(t, {
    year: moved.getUTCFullYear(),
    month: moved.getUTCMonth() + 1,
    day: moved.getUTCDate(),
    hour: moved.getUTCHours(),
    minute: moved.getUTCMinutes(),
    second: moved.getUTCSeconds(),
  });
}

/** `t` with some fields replaced; the instant moves with them (the zone's offset is kept). */
export function withFields(t: WallTime, fields: Partial<Omit<WallTime, "epochMs" | "offsetMinutes">>): WallTime {
  const next = { ...t, ...fields };
  const utc = Date.UTC(next.year, next.month - 1, next.day, next.hour, next.minute, next.second, next.millisecond);
  return { ...next, epochMs: utc - next.offsetMinutes * 60_000 };
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(t: Pick<WallTime, "year" | "month" | "day">): number {
  return new Date(Date.UTC(t.year, t.month - 1, t.day)).getUTCDay();
}

export function dayOfYear(t: Pick<WallTime, "year" | "month" | "day">): number {
  return Math.round((Date.UTC(t.year, t.month - 1, t.day) - Date.UTC(t.year, 0, 1)) / DAY_MS) + 1;
}

/**
 * How weeks are numbered: `dow` is the first day of the week (0 Sunday), and the week holding
 * January `7 + dow - doy` is week 1. moment's ISO weeks are {dow 1, doy 4}; its default
 * ("en") locale weeks are {dow 0, doy 6}: Sunday to Saturday, week 1 holds January 1.
 */
export interface WeekRule {
  dow: number;
  doy: number;
}

export const ISO_WEEKS: WeekRule = { dow: 1, doy: 4 };
export const LOCALE_WEEKS: WeekRule = { dow: 0, doy: 6 };

/** The week number and the year it belongs to (which differs from the calendar year near January 1). */
export function weekOfYear(t: Pick<WallTime, "year" | "month" | "day">, rule: WeekRule): { week: number; year: number } {
  const offset = firstWeekOffset(t.year, rule);
  const week = Math.floor((dayOfYear(t) - offset - 1) / 7) + 1;
  if (week < 1) return { year: t.year - 1, week: week + weeksInYear(t.year - 1, rule) };
  const inYear = weeksInYear(t.year, rule);
  if (week > inYear) return { year: t.year + 1, week: week - inYear };
  return { year: t.year, week };
}

/** Day of the year (0-based, may be negative) on which week 1 starts, minus one. */
function firstWeekOffset(year: number, rule: WeekRule): number {
  const janX = 7 + rule.dow - rule.doy;
  const shift = (7 + weekday({ year, month: 1, day: janX }) - rule.dow) % 7;
  return -shift + janX - 1;
}

function weeksInYear(year: number, rule: WeekRule): number {
  const days = dayOfYear({ year, month: 12, day: 31 });
  return (days - firstWeekOffset(year, rule) + firstWeekOffset(year + 1, rule)) / 7;
}

/** The first day (midnight) of the week holding `t`, under `rule`. */
export function startOfWeek(t: WallTime, rule: WeekRule): WallTime {
  const back = (weekday(t) - rule.dow + 7) % 7;
  return shiftWallTime(withFields(t, { hour: 0, minute: 0, second: 0, millisecond: 0 }), -back, "d");
}
