import { IndxError } from "../../../core/errors.ts";
import { parseFrontmatterYaml, splitFrontmatter } from "../../../markdown/frontmatter.ts";
import type { PatchOp } from "../../../patch/schema.ts";

/** What an AI operation wants of one note's frontmatter, computed from the frontmatter as it is now. */
export interface FrontmatterPlan<D> {
  /** key → the whole new value. A key whose value is already that is left alone. */
  set: Record<string, unknown>;
  /** What the operation reports for the note once written (tags_added, fields_set…). */
  detail: D;
}

/**
 * One note an AI operation may edit: its frontmatter edits are planned from the note as read
 * inside the write lock (an apply) or as it is now (a proposed patch), never from the version the
 * model read, so a concurrent edit of another key is kept.
 */
export interface NotePlanner<D> {
  path: string;
  /** The version the suggestions were made from: the proposed patch's if_match. */
  etag: string;
  /** Why the edit is proposed (the proposed patch's reason). */
  reason: string;
  plan(frontmatter: Readonly<Record<string, unknown>>): FrontmatterPlan<D>;
}

/** A note's frontmatter as data ({} without a block); parse_failed when its YAML cannot be read, as note_patch refuses it too. */
export function frontmatterOf(path: string, text: string): Record<string, unknown> {
  const fm = splitFrontmatter(text);
  if (fm === null) return {};
  const parsed = parseFrontmatterYaml(fm.yaml, fm.yamlLine);
  if (parsed.data === null) throw new IndxError("parse_failed", `${path}: the frontmatter is not valid YAML, so it is not edited.`, { path });
  return parsed.data;
}

/**
 * The set_frontmatter ops that make `set` true of `frontmatter`: only keys whose value changes,
 * so a repeat is no edit at all (and a list written as `[a, b]` is not re-laid out for nothing).
 */
export function frontmatterOps(frontmatter: Readonly<Record<string, unknown>>, set: Readonly<Record<string, unknown>>): PatchOp[] {
  return Object.entries(set)
    .filter(([key, value]) => !(Object.hasOwn(frontmatter, key) && Bun.deepEquals(frontmatter[key], value)))
    .map(([key, value]) => ({ op: "set_frontmatter", key, value }));
}
