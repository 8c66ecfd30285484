import { formatDate, relativeTime, startOfDay } from "../dates.ts";
import { DateValue, type DurationValue } from "../values.ts";
import { type FieldTable, type MethodTable, method } from "./types.ts";

const local = (d: DateValue) => new Date(d.ms);

export const DATE_FIELDS: FieldTable<DateValue> = {
  year: (d) => local(d).getFullYear(),
  month: (d) => local(d).getMonth() + 1,
  day: (d) => local(d).getDate(),
  hour: (d) => local(d).getHours(),
  minute: (d) => local(d).getMinutes(),
  second: (d) => local(d).getSeconds(),
  millisecond: (d) => local(d).getMilliseconds(),
};

export const DATE_METHODS: MethodTable<DateValue> = {
  date: method([0, 0], (d) => new DateValue(startOfDay(d.ms), false)),
  format: method([1, 1], (d, [fmt]) => formatDate(d.ms, typeof fmt === "string" ? fmt : "YYYY-MM-DD")),
  time: method([0, 0], (d) => formatDate(d.ms, "HH:mm:ss")),
  relative: method([0, 0], (d, _args, scope) => relativeTime(d.ms, scope.env.now)),
  isEmpty: method([0, 0], () => false),
};

/**
 * A duration in one unit, fractional like moment's asDays(): (now() - birthday).years.floor() is
 * an age (docs/decisions.md, "Bases values").
 */
const inUnit = (unitMs: number) => (d: DurationValue) => d.totalMs / unitMs;

const DAY_MS = 86_400_000;

export const DURATION_FIELDS: FieldTable<DurationValue> = {
  years: inUnit(365.2425 * DAY_MS),
  months: inUnit((365.2425 / 12) * DAY_MS),
  weeks: inUnit(7 * DAY_MS),
  days: inUnit(DAY_MS),
  hours: inUnit(3_600_000),
  minutes: inUnit(60_000),
  seconds: inUnit(1000),
  milliseconds: (d) => d.totalMs,
};
