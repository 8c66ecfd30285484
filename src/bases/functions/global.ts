import { parseDate, parseDuration } from "../dates.ts";
import { toText } from "../expr/operators.ts";
import { ascending } from "../order.ts";
import { DateValue, DurationValue, ErrorValue, error, FileValue, isList, isTruthy, LinkValue, MarkupValue, type Value } from "../values.ts";
import { linkTo, targetPath } from "./file.ts";
import { LEGACY_GLOBALS } from "./legacy.ts";
import { type GlobalDef, lazyMethod, method } from "./types.ts";

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function toNumber(v: Value): Value {
  if (v === null || typeof v === "number" || v instanceof ErrorValue) return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof DateValue) return v.ms;
  if (v instanceof DurationValue) return v.totalMs;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v.trim());
    if (Number.isFinite(n)) return n;
  }
  return error(`Cannot convert ${toText(v) === "" ? "this value" : `'${toText(v).slice(0, 40)}'`} to a number`);
}

function extreme(args: readonly Value[], pick: 1 | -1): Value {
  const values = args.flatMap((v) => (isList(v) ? v : [v])).filter((v) => typeof v === "number" || v instanceof DateValue);
  if (values.length === 0) return null;
  return values.reduce((best, v) => (ascending(v, best) * pick > 0 ? v : best));
}

/** The text a file(), image() or link() argument names: a path, a link's target, or a file's path. */
const pathText = (v: Value): string | null =>
  typeof v === "string" ? v : v instanceof FileValue ? v.entry.path : v instanceof LinkValue ? (v.target ?? v.linkpath) : null;

export const GLOBALS: Readonly<Record<string, GlobalDef>> = {
  ...LEGACY_GLOBALS,
  escapeHTML: method([1, 1], (_, [html]) => toText(html).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)),
  date: method([1, 1], (_, [v]) => {
    if (v instanceof DateValue || v === null) return v;
    return (typeof v === "string" ? parseDate(v) : null) ?? error("date() takes a date such as 2025-01-31 or 2025-01-31 12:00:00");
  }),
  duration: method([1, 1], (_, [v]) => {
    if (v instanceof DurationValue || v === null) return v;
    return (typeof v === "string" ? parseDuration(v) : null) ?? error("duration() takes a duration such as 1d, 2h or 3 weeks");
  }),
  file: method([1, 1], (_, [v], scope) => {
    const path = v === undefined ? null : targetPath(v, scope.env.thisEntry.path, scope);
    const entry = path === null ? null : scope.env.world.entry(path);
    return entry ? new FileValue(entry) : null;
  }),
  html: method([1, 1], (_, [v]) => new MarkupValue("html", toText(v))),
  if: lazyMethod([2, 3], (_, [cond, then, otherwise], scope) => (isTruthy(cond(scope)) ? then(scope) : otherwise ? otherwise(scope) : null)),
  image: method([1, 1], (_, [v]) => {
    const path = pathText(v);
    return path === null ? null : new MarkupValue("image", path);
  }),
  icon: method([1, 1], (_, [v]) => (typeof v === "string" ? new MarkupValue("icon", v) : null)),
  link: method([1, 2], (_, [v, display], scope) => {
    const shown = display === undefined || display === null ? null : toText(display);
    if (v instanceof FileValue) return linkTo(v.entry, shown);
    if (v instanceof LinkValue) return new LinkValue(v.linkpath, v.target, shown ?? v.display);
    if (typeof v !== "string") return null;
    const inner = /^\[\[([^\]|#]*)/.exec(v)?.[1] ?? v;
    const world = scope.env.world;
    return new LinkValue(inner, world.entry(inner) ? inner : world.resolve(inner, scope.env.thisEntry.path), shown);
  }),
  list: method([1, 1], (_, [v]) => (v === null ? [] : isList(v) ? v : [v])),
  max: method([1, Infinity], (_, args) => extreme(args, 1)),
  min: method([1, Infinity], (_, args) => extreme(args, -1)),
  now: method([0, 0], (_, _args, scope) => new DateValue(scope.env.now, true)),
  today: method([0, 0], (_, _args, scope) => new DateValue(scope.env.today, false)),
  number: method([1, 1], (_, [v]) => toNumber(v)),
  random: method([0, 0], () => Math.random()),
};
