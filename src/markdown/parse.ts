/** `parseNote`: everything indx extracts from one Markdown note, in a single pass over the body. */
import { buildChunks, type ChunkOptions } from "./chunks.ts";
import { frontmatterAliases, frontmatterLinks, frontmatterTagLines, parseFrontmatterYaml, splitFrontmatter } from "./frontmatter.ts";
import { scanBody } from "./scanner.ts";
import { tagKey } from "./tags.ts";
import type { LinkRef, ParsedNote } from "./types.ts";
import { countWords } from "./words.ts";

export type ParseOptions = ChunkOptions;

export function parseNote(text: string, opts: ParseOptions = {}): ParsedNote {
  const fm = splitFrontmatter(text);
  let frontmatter: Record<string, unknown> | null = null;
  let frontmatterError: string | null = null;
  let aliases: string[] = [];
  let links: LinkRef[] = [];
  const tagOccurrences: ParsedNote["tagOccurrences"] = [];
  if (fm) {
    const r = parseFrontmatterYaml(fm.yaml, fm.yamlLine);
    frontmatter = r.data;
    frontmatterError = r.error;
    aliases = frontmatterAliases(frontmatter);
    for (const t of frontmatterTagLines(frontmatter, fm, text)) {
      tagOccurrences.push({ tag: t.tag, source: "frontmatter", line: t.line });
    }
    links = frontmatterLinks(frontmatter, fm, text);
  }
  const bodyOffset = fm ? fm.bodyOffset : 0;
  const bodyLine = fm ? fm.bodyLine : 1;

  const scan = scanBody(text, bodyOffset, bodyLine);
  for (const t of scan.tags) tagOccurrences.push({ tag: t.tag, source: "body", line: t.line });
  links = links.length === 0 ? scan.links : links.concat(scan.links);

  const seen = new Set<string>();
  const tags: string[] = [];
  for (const o of tagOccurrences) {
    const k = tagKey(o.tag);
    if (!seen.has(k)) {
      seen.add(k);
      tags.push(o.tag);
    }
  }

  return {
    frontmatter,
    frontmatterError,
    bodyOffset,
    bodyLine,
    aliases,
    tags,
    tagOccurrences,
    headings: scan.headings,
    links,
    blocks: scan.blocks,
    tasks: scan.tasks,
    chunks: buildChunks({ text, lineStarts: scan.lineStarts, firstLine: scan.firstLine, fences: scan.fences, headings: scan.headings }, opts),
    wordCount: countWords(text, bodyOffset, text.length),
  };
}
