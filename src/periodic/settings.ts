/**
 * Where a vault keeps its daily (and weekly, monthly, …) notes: the core Daily notes plugin's
 * `.obsidian/daily-notes.json`, or the Periodic Notes community plugin's
 * `.obsidian/plugins/periodic-notes/data.json` when it configures that period. Both hold a
 * folder, a moment.js file-name format and a template.
 */
import { IndxError } from "../core/errors.ts";
import { ISO_WEEKS, LOCALE_WEEKS, type WeekRule } from "../dates/calendar.ts";
import { readObsidianJson } from "../vault/obsidian-app.ts";

export const PERIODS = ["daily", "weekly", "monthly", "quarterly", "yearly"] as const;
export type Period = (typeof PERIODS)[number];

export interface PeriodSettings {
  period: Period;
  /** Vault folder of the notes; "" is the vault root. */
  folder: string;
  /** moment.js format of the file name; `/` in it makes subfolders. */
  format: string;
  /** The template as the settings name it, or null. */
  template: string | null;
  /** Which settings file said so. */
  source: "daily-notes" | "periodic-notes";
}

/** Periodic Notes' own defaults (an empty format means these). */
const DEFAULT_FORMATS: Record<Period, string> = {
  daily: "YYYY-MM-DD",
  weekly: "gggg-[W]ww",
  monthly: "YYYY-MM",
  quarterly: "YYYY-[Q]Q",
  yearly: "YYYY",
};

/** Periodic Notes 1.x keeps "calendar sets" keyed by unit rather than by period. */
const CALENDAR_SET_KEYS: Record<Period, string> = { daily: "day", weekly: "week", monthly: "month", quarterly: "quarter", yearly: "year" };

const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The settings of `period`. Periodic Notes wins where it enables the period; daily notes
 * otherwise follow the core plugin (its defaults when it has no file: the vault root and
 * YYYY-MM-DD); other periods exist only where Periodic Notes enables them.
 */
export function readPeriodSettings(vaultRoot: string, period: Period): PeriodSettings {
  const plugin = periodicNotesEntry(readObsidianJson(vaultRoot, "plugins/periodic-notes/data.json"), period);
  if (plugin) return { period, ...plugin, source: "periodic-notes" };
  if (period !== "daily")
    throw new IndxError("validation_failed", `This vault has no ${period} notes: the Periodic Notes plugin does not enable them.`, {
      field: "period",
      reason: "not_configured",
    });
  const core = readObsidianJson(vaultRoot, "daily-notes.json");
  return { period, ...entry(core, "template", DEFAULT_FORMATS.daily), source: "daily-notes" };
}

function periodicNotesEntry(data: Record<string, unknown>, period: Period): Omit<PeriodSettings, "period" | "source"> | null {
  if (Array.isArray(data.calendarSets)) {
    const sets = data.calendarSets.filter(isObject);
    const set = sets.find((s) => s.id === data.activeCalendarSet) ?? sets[0];
    const unit = set?.[CALENDAR_SET_KEYS[period]];
    return isObject(unit) && unit.enabled === true ? entry(unit, "templatePath", DEFAULT_FORMATS[period]) : null;
  }
  const settings = data[period];
  return isObject(settings) && settings.enabled === true ? entry(settings, "template", DEFAULT_FORMATS[period]) : null;
}

function entry(raw: Record<string, unknown>, templateKey: string, defaultFormat: string): Omit<PeriodSettings, "period" | "source"> {
  return {
    folder: text(raw.folder).replace(/^\/+|\/+$/g, ""),
    format: text(raw.format) || defaultFormat,
    template: text(raw[templateKey]) || null,
  };
}

/**
 * How a weekly note's format numbers weeks: ISO weeks (Monday first) when it uses the ISO tokens
 * `W` or `G`, else moment's default-locale weeks (Sunday first), which `w` and `g` follow.
 */
export function weekRuleOf(format: string): WeekRule {
  const tokens = format.replace(/\[[^\]]*\]|\\./g, "");
  return /[WG]/.test(tokens) ? ISO_WEEKS : LOCALE_WEEKS;
}
