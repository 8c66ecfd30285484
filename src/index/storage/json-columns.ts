/**
 * The note columns the index stores as JSON text (tags, aliases, frontmatter: see schema.ts) are
 * decoded here and nowhere else, behind the storage seam (docs/architecture.md). Rows keep the
 * text, so a caller decodes only what it returns (a page of note_list, a Bases row it reads).
 */

/** A note's tags, first spelling of each; none when the column holds nothing. */
export function tagsOf(row: { tagsJson: string | null }): string[] {
  return row.tagsJson ? (JSON.parse(row.tagsJson) as string[]) : [];
}

/** A note's aliases. */
export function aliasesOf(row: { aliasesJson: string }): string[] {
  return JSON.parse(row.aliasesJson) as string[];
}

/** A note's frontmatter object, or null without (valid) frontmatter. */
export function frontmatterOf(row: { frontmatterJson: string | null }): Record<string, unknown> | null {
  return row.frontmatterJson ? (JSON.parse(row.frontmatterJson) as Record<string, unknown>) : null;
}
