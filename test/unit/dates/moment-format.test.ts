import { describe, expect, test } from "bun:test";
import { assertTimeZone, parseIsoDay, shiftWallTime, startOfWeek, type WallTime, wallTimeAt, weekOfYear } from "../../../src/dates/calendar.ts";
import { formatMoment } from "../../../src/dates/moment-format.ts";

/** A wall time in UTC (offset 0), from its fields. */
function at(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millisecond = 0): WallTime {
  return { year, month, day, hour, minute, second, millisecond, offsetMinutes: 0, epochMs: Date.UTC(year, month - 1, day, hour, minute, second, millisecond) };
}

describe("formatMoment: the tokens Obsidian users write", () => {
  const t = at(2025, 3, 9, 14, 5, 7, 42); // a Sunday

  test("years, quarters, months, days, weekdays", () => {
    expect(formatMoment(t, "YYYY YY Q Qo")).toBe("2025 25 1 1st");
    expect(formatMoment(t, "MMMM MMM MM M Mo")).toBe("March Mar 03 3 3rd");
    expect(formatMoment(t, "DD D Do DDD DDDD")).toBe("09 9 9th 68 068");
    expect(formatMoment(t, "dddd ddd dd d E e")).toBe("Sunday Sun Su 0 7 0");
    expect(formatMoment(at(2025, 11, 3), "Q dddd E")).toBe("4 Monday 1");
  });

  test("times, 12- and 24-hour clocks, fractions, zones, instants", () => {
    expect(formatMoment(t, "HH:mm:ss.SSS h hh A a")).toBe("14:05:07.042 2 02 PM pm");
    expect(formatMoment(at(2025, 3, 9, 0, 3), "H HH h hh k kk A")).toBe("0 00 12 12 24 24 AM");
    expect(formatMoment({ ...t, offsetMinutes: -330 }, "Z ZZ")).toBe("-05:30 -0530");
    expect(formatMoment(t, "X")).toBe(String(Math.floor(t.epochMs / 1000)));
    expect(formatMoment(t, "x")).toBe(String(t.epochMs));
  });

  test("ordinals follow English: 1st 2nd 3rd 4th 11th 12th 13th 21st 22nd 23rd", () => {
    const days = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31];
    expect(days.map((d) => formatMoment(at(2025, 1, d), "Do"))).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "31st"]);
  });

  test("[literals], \\escapes and path separators pass through", () => {
    expect(formatMoment(t, "YYYY/MM-MMMM/YYYY-MM-DD")).toBe("2025/03-March/2025-03-09");
    expect(formatMoment(t, "[Week] W [of] YYYY")).toBe("Week 10 of 2025");
    expect(formatMoment(t, "\\Y\\e\\ar YYYY")).toBe("Year 2025");
    expect(formatMoment(t, "[YYYY-MM-DD]")).toBe("YYYY-MM-DD");
  });

  test("week numbers around New Year: ISO (W, GGGG) and moment's default locale (w, gggg)", () => {
    // Friday 2021-01-01: ISO week 53 of 2020; locale week 1 of 2021 (week 1 holds January 1).
    expect(formatMoment(at(2021, 1, 1), "GGGG-[W]WW gggg-[W]ww")).toBe("2020-W53 2021-W01");
    // Sunday 2024-12-29 opens the locale week holding 2025-01-01; ISO still counts it in 2024.
    expect(formatMoment(at(2024, 12, 29), "GGGG-[W]WW gggg-[W]ww")).toBe("2024-W52 2025-W01");
    expect(formatMoment(at(2024, 12, 30), "GGGG-[W]WW GG W Wo")).toBe("2025-W01 25 1 1st");
    expect(formatMoment(at(2026, 1, 7), "GGGG-[W]WW gggg-[W]ww w wo")).toBe("2026-W02 2026-W02 2 2nd");
  });

  test("week numbers agree with independent rules on every day of 2000–2040", () => {
    const day = 86_400_000;
    const doy = (d: Date) => Math.round((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / day) + 1;
    const mismatches: string[] = [];
    for (let ms = Date.UTC(2000, 0, 1); ms <= Date.UTC(2040, 11, 31); ms += day) {
      const d = new Date(ms);
      const fields = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
      // ISO: the week belongs to the year of its Thursday.
      const thursday = new Date(ms + (3 - ((d.getUTCDay() + 6) % 7)) * day);
      const iso = { year: thursday.getUTCFullYear(), week: Math.ceil(doy(thursday) / 7) };
      // Sunday-first weeks with January 1 in week 1: the week belongs to the year of its Saturday.
      const saturday = new Date(ms + (6 - d.getUTCDay()) * day);
      const locale = { year: saturday.getUTCFullYear(), week: Math.ceil(doy(saturday) / 7) };
      const got = { iso: weekOfYear(fields, { dow: 1, doy: 4 }), locale: weekOfYear(fields, { dow: 0, doy: 6 }) };
      if (JSON.stringify(got) !== JSON.stringify({ iso, locale })) mismatches.push(d.toISOString().slice(0, 10));
    }
    expect(mismatches).toEqual([]);
  });
});

describe("wall time", () => {
  test("an instant in a named zone, with its offset", () => {
    const instant = Date.UTC(2025, 0, 1, 23, 30);
    const berlin = wallTimeAt(instant, "Europe/Berlin");
    expect(formatMoment(berlin, "YYYY-MM-DD HH:mm Z")).toBe("2025-01-02 00:30 +01:00");
    expect(formatMoment(wallTimeAt(instant, "America/New_York"), "YYYY-MM-DD HH:mm Z")).toBe("2025-01-01 18:30 -05:00");
    expect(formatMoment(wallTimeAt(Date.UTC(2025, 6, 1, 12), "Europe/Berlin"), "HH:mm ZZ")).toBe("14:00 +0200");
    expect(berlin.epochMs).toBe(instant);
  });

  test("unknown zones and impossible days are refused", () => {
    expect(() => assertTimeZone("Mars/Olympus")).toThrow("IANA time zone");
    expect(parseIsoDay("2026-02-29")).toBeNull();
    expect(parseIsoDay("2024-02-29")).toEqual({ year: 2024, month: 2, day: 29 });
    expect(parseIsoDay("yesterday")).toBeNull();
  });

  test("calendar arithmetic: month ends clamp, weeks start on the rule's first day", () => {
    expect(formatMoment(shiftWallTime(at(2025, 1, 31), 1, "M"), "YYYY-MM-DD")).toBe("2025-02-28");
    expect(formatMoment(shiftWallTime(at(2024, 2, 29), 1, "y"), "YYYY-MM-DD")).toBe("2025-02-28");
    expect(formatMoment(shiftWallTime(at(2025, 12, 31, 23), 2, "h"), "YYYY-MM-DD HH")).toBe("2026-01-01 01");
    expect(formatMoment(shiftWallTime(at(2025, 3, 1), -1, "d"), "YYYY-MM-DD")).toBe("2025-02-28");
    expect(formatMoment(shiftWallTime(at(2025, 11, 15), 1, "q"), "YYYY-MM-DD")).toBe("2026-02-15");
    expect(formatMoment(startOfWeek(at(2026, 1, 7, 15), { dow: 1, doy: 4 }), "YYYY-MM-DD HH:mm dddd")).toBe("2026-01-05 00:00 Monday");
    expect(formatMoment(startOfWeek(at(2026, 1, 7), { dow: 0, doy: 6 }), "YYYY-MM-DD dddd")).toBe("2026-01-04 Sunday");
  });
});
