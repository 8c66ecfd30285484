import type { Entry } from "../entry.ts";
import type { Scope } from "../expr/scope.ts";
import { DateValue, FileValue, LinkValue, ObjectValue, type Value } from "../values.ts";
import { type FieldTable, type MethodTable, method } from "./types.ts";

const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const extOf = (path: string) => {
  const name = nameOf(path);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1) : "";
};

/** The parent folder; "/" for a file at the root, as Obsidian's root folder path. */
const folderOf = (path: string) => {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "/" : path.slice(0, slash);
};

/** The link a file is reached by: its path, shown as its base name. */
export const linkTo = (entry: Entry, display: string | null = null) => new LinkValue(entry.path, entry.path, display);

export const FILE_FIELDS: FieldTable<Entry> = {
  name: (e) => nameOf(e.path),
  basename: (e) => {
    const name = nameOf(e.path);
    const ext = extOf(e.path);
    return ext ? name.slice(0, -(ext.length + 1)) : name;
  },
  path: (e) => e.path,
  folder: (e) => folderOf(e.path),
  ext: (e) => extOf(e.path),
  size: (e) => e.size,
  ctime: (e) => new DateValue(e.ctimeMs(), true),
  mtime: (e) => new DateValue(e.mtimeMs, true),
  tags: (e) => e.tags().map((t) => `#${t}`),
  links: (e) => e.links(),
  embeds: (e) => e.embeds(),
  backlinks: (e) => e.backlinks(),
  properties: (e) => new ObjectValue(e.properties),
  file: (e) => new FileValue(e),
};

/** The path a file, a link or a link text stands for, seen from `from` (null when it resolves nowhere). */
export function targetPath(v: Value, from: string, scope: Scope): string | null {
  if (v instanceof FileValue) return v.entry.path;
  if (v instanceof LinkValue) return v.target;
  if (typeof v !== "string") return null;
  const inner = /^\[\[([^\]|#]*)/.exec(v)?.[1] ?? v;
  return scope.env.world.entry(inner) ? inner : scope.env.world.resolve(inner, from);
}

const tagKey = (t: string) => t.replace(/^#/, "").toLowerCase();

/** A tag or one nested in it, case-insensitive: hasTag("a") holds for #A and #a/b. */
const hasTag = (tags: readonly string[], wanted: string) => {
  const key = tagKey(wanted);
  return tags.some((t) => {
    const k = t.toLowerCase();
    return k === key || k.startsWith(`${key}/`);
  });
};

export const FILE_METHODS: MethodTable<Entry> = {
  asLink: method([0, 1], (e, [display]) => linkTo(e, typeof display === "string" ? display : null)),
  hasLink: method([1, 1], (e, [other], scope) => {
    const target = targetPath(other, e.path, scope);
    return target !== null && e.links().some((l) => l.target === target);
  }),
  hasProperty: method([1, 1], (e, [name]) => typeof name === "string" && Object.hasOwn(e.properties, name)),
  hasTag: method([1, Infinity], (e, tags) => {
    const own = e.tags();
    return tags.some((t) => typeof t === "string" && hasTag(own, t));
  }),
  inFolder: method([1, 1], (e, [folder]) => {
    if (typeof folder !== "string") return false;
    const f = folder.replace(/^\/+|\/+$/g, "");
    return f === "" || e.path.startsWith(`${f}/`);
  }),
};

export const LINK_METHODS: MethodTable<LinkValue> = {
  asFile: method([0, 0], (l, _args, scope) => {
    const entry = l.target === null ? null : scope.env.world.entry(l.target);
    return entry ? new FileValue(entry) : null;
  }),
  linksTo: method([1, 1], (l, [file], scope) => l.target !== null && l.target === targetPath(file, scope.env.thisEntry.path, scope)),
};
