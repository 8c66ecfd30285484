import type { Format } from "./output.ts";

/**
 * Paged lists on the command line (docs/decisions.md, "Every page from the CLI"): `--all` asks
 * for every page and prints each as it comes; without it, a list format that stops at the page
 * size says so on stderr, where a pipeline's reader does not take it for a row.
 */

/** The list formats: rows only, so the next page's cursor would be lost without a word. */
const ROW_FORMATS: readonly Format[] = ["ndjson", "csv", "md", "files"];

export const nextCursorOf = (output: unknown): string | null => {
  const c = output && typeof output === "object" ? (output as { next_cursor?: unknown }).next_cursor : null;
  return typeof c === "string" ? c : null;
};

/** What `--all` prints: rows (NDJSON) unless a row format was asked for, or a person reads it. */
export function allPagesFormat(format: Format, explicit: boolean): Format {
  if (ROW_FORMATS.includes(format)) return format;
  return format === "human" && !explicit ? "human" : "ndjson";
}

/** A later page of a table printed once: without its header lines. */
export function withoutHeader(text: string, format: Format): string {
  const header = format === "csv" ? 1 : format === "md" ? 2 : 0;
  return header ? text.split("\n").slice(header).join("\n") : text;
}

/** The notice for a list cut at the page size, or null when nothing was cut or the output shows its cursor itself. */
export function cutNotice(output: unknown, format: Format): string | null {
  const cursor = nextCursorOf(output);
  if (cursor === null || !ROW_FORMATS.includes(format)) return null;
  return `indx: more results than this page: --all prints every page, --cursor ${cursor} the next one.`;
}
