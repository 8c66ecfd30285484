/**
 * A new link, written as Obsidian would write it in this vault (docs/obsidian.md, Link
 * generation): a wikilink `[[Name]]`, or with `useMarkdownLinks` a Markdown link
 * `[Name](path%20with%20spaces.md)`, its path in the vault's `newLinkFormat`.
 */
import { IndxError } from "../core/errors.ts";
import { linksInString } from "../markdown/links.ts";
import type { ObsidianAppSettings } from "../vault/obsidian-app.ts";
import { linktextCandidates, withoutMd } from "./link-text.ts";
import { encodeMarkdownPath, fitsWikilink } from "./link-token.ts";
import type { LinkResolver } from "./resolve.ts";

/**
 * The link from `source` to `target`: the first text, best first, that parses as one link and
 * resolves back to `target` from `source` (a shortest name shared by two notes gets the longer
 * path). A wikilink that cannot hold the path (`|`, `]]`) is written as a Markdown link instead;
 * a path no link can name (a `#` in it: Obsidian reads it as a heading) is validation_failed.
 */
export function newLinkText(
  target: string,
  source: string,
  app: Pick<ObsidianAppSettings, "newLinkFormat" | "useMarkdownLinks">,
  resolver: LinkResolver,
): string {
  const display = withoutMd(target.slice(target.lastIndexOf("/") + 1));
  const wiki = app.useMarkdownLinks
    ? []
    : linktextCandidates(target, source, app.newLinkFormat, resolver, true)
        .filter(fitsWikilink)
        .map((t) => `[[${t}]]`);
  const label = display.replace(/[[\]\\]/g, "\\$&");
  const markdown = linktextCandidates(target, source, app.newLinkFormat, resolver, false).flatMap((t) => [
    `[${label}](${encodeMarkdownPath(t, false)})`,
    `[${label}](<${t}>)`,
  ]);
  for (const token of [...wiki, ...markdown]) {
    const parsed = linksInString(token);
    if (parsed.length === 1 && parsed[0]!.raw === token && resolver.resolve(parsed[0]!.linkpath, source) === target) return token;
  }
  throw new IndxError("validation_failed", `No link text Obsidian would resolve to ${target} can be written in ${source}.`, { path: target });
}
