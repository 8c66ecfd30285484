import type { FileKind } from "../vault/scan.ts";
import type { LinkValue, Value } from "./values.ts";

/**
 * One vault file as a base sees it: a row candidate, `this`, or the file a link points at. What
 * is costly to load (tags, links, backlinks, creation time) is fetched on first use.
 */
export interface Entry {
  readonly path: string;
  readonly kind: FileKind;
  readonly size: number;
  readonly mtimeMs: number;
  ctimeMs(): number;
  /** Typed frontmatter (empty for files that are not notes). */
  readonly properties: Readonly<Record<string, Value>>;
  /** Tags without '#', frontmatter and body, first spelling of each. */
  tags(): readonly string[];
  /** Links and embeds out of the file, in document order. */
  links(): readonly LinkValue[];
  embeds(): readonly LinkValue[];
  /** Links to the files that link here, one per source file. */
  backlinks(): readonly LinkValue[];
}

/** The vault as expressions reach it: files by path and link resolution. */
export interface World {
  entry(path: string): Entry | null;
  /** Obsidian's link resolution from `from`: the target path, or null. */
  resolve(linkpath: string, from: string): string | null;
}
