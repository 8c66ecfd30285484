/**
 * moment.js's `format()` for the tokens Obsidian users write: in daily-note formats
 * (`YYYY/MM/YYYY-MM-DD`, `gggg-[W]ww`), template variables (`{{date:dddd, MMMM Do}}`) and Bases'
 * `date.format()`. English names, as moment's default locale; `[text]` and `\c` are literal.
 */
import { dayOfYear, ISO_WEEKS, LOCALE_WEEKS, type WallTime, weekday, weekOfYear } from "./calendar.ts";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const monthName = (month: number): string => MONTHS[month - 1] ?? "";
const weekdayName = (dow: number): string => WEEKDAYS[dow] ?? "";

/** Longest token first for each letter, as moment's own tokenizer does. */
const TOKEN_RE =
  /\[([^\]]*)\]|\\(.)|YYYY|YY|Y|Qo|Q|MMMM|MMM|Mo|MM|M|DDDo|DDDD|DDD|Do|DD|D|dddd|ddd|do|dd|d|E|e|wo|ww|w|Wo|WW|W|gggg|gg|GGGG|GG|HH|H|hh|h|kk|k|mm|m|ss|s|SSS|SS|S|A|a|ZZ|Z|X|x/g;

const pad = (n: number, width = 2) => (n < 0 ? "-" : "") + String(Math.abs(Math.trunc(n))).padStart(width, "0");

export function ordinal(n: number): string {
  const rem100 = n % 100;
  if (rem100 >= 11 && rem100 <= 13) return `${n}th`;
  return `${n}${["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
}

function zone(offsetMinutes: number, colon: boolean): string {
  const abs = Math.abs(offsetMinutes);
  return `${offsetMinutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}${colon ? ":" : ""}${pad(abs % 60)}`;
}

/** `t` written in a moment.js format string. */
export function formatMoment(t: WallTime, format: string): string {
  return format.replace(TOKEN_RE, (token, literal: string | undefined, escaped: string | undefined) => {
    if (literal !== undefined) return literal;
    if (escaped !== undefined) return escaped;
    return tokenText(t, token);
  });
}

function tokenText(t: WallTime, token: string): string {
  const hour12 = t.hour % 12 || 12;
  const dow = weekday(t);
  switch (token) {
    case "YYYY":
      return pad(t.year, 4);
    case "YY":
      return pad(t.year % 100);
    case "Y":
      return String(t.year);
    case "Qo":
      return ordinal(Math.ceil(t.month / 3));
    case "Q":
      return String(Math.ceil(t.month / 3));
    case "MMMM":
      return monthName(t.month);
    case "MMM":
      return monthName(t.month).slice(0, 3);
    case "Mo":
      return ordinal(t.month);
    case "MM":
      return pad(t.month);
    case "M":
      return String(t.month);
    case "DDDo":
      return ordinal(dayOfYear(t));
    case "DDDD":
      return pad(dayOfYear(t), 3);
    case "DDD":
      return String(dayOfYear(t));
    case "Do":
      return ordinal(t.day);
    case "DD":
      return pad(t.day);
    case "D":
      return String(t.day);
    case "dddd":
      return weekdayName(dow);
    case "ddd":
      return weekdayName(dow).slice(0, 3);
    case "do":
      return ordinal(dow);
    case "dd":
      return weekdayName(dow).slice(0, 2);
    case "d":
    case "e":
      return String(dow);
    case "E":
      return String(dow || 7);
    default:
      return weekToken(t, token) ?? timeToken(t, token, hour12);
  }
}

/** w/ww/wo and gg/gggg: moment's default-locale weeks; W/WW/Wo and GG/GGGG: ISO weeks. */
function weekToken(t: WallTime, token: string): string | null {
  const first = token[0];
  if (first !== "w" && first !== "W" && first !== "g" && first !== "G") return null;
  const { week, year } = weekOfYear(t, first === "w" || first === "g" ? LOCALE_WEEKS : ISO_WEEKS);
  if (token === "ww" || token === "WW") return pad(week);
  if (token === "w" || token === "W") return String(week);
  if (token === "wo" || token === "Wo") return ordinal(week);
  if (token === "gggg" || token === "GGGG") return pad(year, 4);
  return pad(year % 100);
}

function timeToken(t: WallTime, token: string, hour12: number): string {
  switch (token) {
    case "HH":
      return pad(t.hour);
    case "H":
      return String(t.hour);
    case "hh":
      return pad(hour12);
    case "h":
      return String(hour12);
    case "kk":
      return pad(t.hour || 24);
    case "k":
      return String(t.hour || 24);
    case "mm":
      return pad(t.minute);
    case "m":
      return String(t.minute);
    case "ss":
      return pad(t.second);
    case "s":
      return String(t.second);
    case "SSS":
      return pad(t.millisecond, 3);
    case "SS":
      return pad(Math.floor(t.millisecond / 10));
    case "S":
      return String(Math.floor(t.millisecond / 100));
    case "A":
      return t.hour < 12 ? "AM" : "PM";
    case "a":
      return t.hour < 12 ? "am" : "pm";
    case "ZZ":
      return zone(t.offsetMinutes, false);
    case "Z":
      return zone(t.offsetMinutes, true);
    case "X":
      return String(Math.floor(t.epochMs / 1000));
    default:
      return String(t.epochMs);
  }
}
