/**
 * Link generation: what Obsidian writes for a link to a file (docs/obsidian.md, Link generation:
 * `fileToLinktext`), and the fallbacks indx tries when that text would not resolve back to the
 * file.
 */
import { IndxError } from "../core/errors.ts";
import { linksInString } from "../markdown/links.ts";
import type { LinkResolver } from "../vault/link-resolver.ts";
import { encodeMarkdownPath, fitsWikilink } from "./link-token.ts";

export type LinkFormat = "shortest" | "relative" | "absolute";

/** Notes are linked without their `.md` in wikilinks; every other file keeps its extension. */
export function withoutMd(path: string): string {
  return /\.md$/i.test(path) ? path.slice(0, -3) : path;
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** `target` relative to the folder of `source`: `../x/y`, or `y` / `sub/y` without `./` (as Obsidian writes). */
export function relativePath(target: string, source: string): string {
  const from = dirOf(source).split("/").filter(Boolean);
  const to = target.split("/");
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  return "../".repeat(from.length - common) + to.slice(common).join("/");
}

/**
 * Obsidian's `fileToLinktext(target, source, omitMd)` under `newLinkFormat`: the path part of a
 * link from `source` to `target`. "shortest" is the bare name when that name resolves from
 * `source` to exactly one file, the target; otherwise the full vault path.
 */
export function fileToLinktext(target: string, source: string, format: LinkFormat, resolver: LinkResolver, omitMd: boolean): string {
  const path = omitMd ? withoutMd(target) : target;
  if (format === "absolute") return path;
  if (format === "relative") return relativePath(path, source);
  const name = nameOf(path);
  const hits = resolver.candidates(name, source);
  return hits.length === 1 && hits[0] === target ? name : path;
}

/**
 * Link texts to try, best first: the preferred format, then forms that pin the target harder.
 * A plain relative path resolves by suffix (an exact vault path of the same spelling wins), so
 * `./` makes it explicit; the full vault path, and the same with its extension, come last.
 */
export function linktextCandidates(target: string, source: string, format: LinkFormat, resolver: LinkResolver, omitMd: boolean): string[] {
  const preferred = fileToLinktext(target, source, format, resolver, omitMd);
  const out = [preferred];
  if (format === "relative" && !preferred.startsWith("../")) out.push(`./${preferred}`);
  out.push(omitMd ? withoutMd(target) : target, target, `/${target}`);
  return [...new Set(out)];
}

/** How the vault writes new links (`.obsidian/app.json`). */
export interface LinkStyle {
  newLinkFormat: LinkFormat;
  useMarkdownLinks: boolean;
}

/**
 * A new link (or embed) from `source` to `target` as Obsidian would write it: `[[Name]]` or, with
 * useMarkdownLinks, `[Name](Name.md)` with the destination URL-encoded (spaces as `%20`) and the
 * extension kept; an embed of a Markdown link has empty alt text (`![](image%201.png)`). The path
 * part follows newLinkFormat, falling back to forms that pin the target harder
 * (linktextCandidates) until one resolves to `target` in `resolver`, which must already hold it.
 * A wikilink that cannot hold the path (`|`, `]]`) is written as a Markdown link instead; a path
 * no link can name (a `#` in it reads as a heading) is validation_failed.
 */
export function newLinkText(target: string, source: string, style: LinkStyle, resolver: LinkResolver, opts: { embed?: boolean } = {}): string {
  const bang = opts.embed ? "!" : "";
  const label = opts.embed ? "" : withoutMd(nameOf(target)).replace(/[[\]\\]/g, "\\$&");
  const wiki = style.useMarkdownLinks
    ? []
    : linktextCandidates(target, source, style.newLinkFormat, resolver, true)
        .filter(fitsWikilink)
        .map((path) => `${bang}[[${path}]]`);
  const markdown = linktextCandidates(target, source, style.newLinkFormat, resolver, false).flatMap((path) => [
    `${bang}[${label}](${encodeMarkdownPath(path, false)})`,
    `${bang}[${label}](<${path}>)`,
  ]);
  for (const token of [...wiki, ...markdown]) {
    const parsed = linksInString(token);
    const [only] = parsed;
    if (parsed.length === 1 && only?.raw === token && resolver.resolve(only.linkpath, source) === target) return token;
  }
  throw new IndxError("validation_failed", `No link Obsidian would resolve to ${target} can be written in ${source || "the vault root"}.`, { path: target });
}
