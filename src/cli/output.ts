import type { TObject, TSchema } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { stdoutIsTTY } from "./io.ts";

export type Format = "human" | "json" | "ndjson" | "csv" | "md" | "files";
export const FORMATS = ["json", "ndjson", "csv", "md", "files", "table"] as const;

/** Lists in operation outputs that --format ndjson|csv|md|files turns into rows. */
const LIST_FIELDS = ["results", "notes", "tags", "backlinks", "links", "unresolved", "anchors", "orphans", "outline", "problems"];

export function chooseFormat(flags: { json?: boolean; format?: string }, isTty: boolean): Format {
  if (flags.format) {
    if (!(FORMATS as readonly string[]).includes(flags.format))
      throw new IndxError("validation_failed", `Unknown --format ${flags.format}; use ${FORMATS.join(", ")}.`, { known: FORMATS });
    // `table` names the human view explicitly (a table for base queries), even through a pipe.
    return flags.format === "table" ? "human" : (flags.format as Format);
  }
  if (flags.json) return "json";
  return isTty ? "human" : "json";
}

function listOf(data: unknown): Record<string, unknown>[] | null {
  if (Array.isArray(data)) return data as Record<string, unknown>[];
  if (data && typeof data === "object")
    for (const f of LIST_FIELDS) {
      const v = (data as Record<string, unknown>)[f];
      if (Array.isArray(v)) return v as Record<string, unknown>[];
    }
  return null;
}

const cell = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

function csvEscape(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * Renders an operation's output for stdout in the chosen format; `human` runs only for the human
 * format, `table` (when the command has one) gives the rows of the list formats.
 */
export function render(data: unknown, format: Format, human: () => string, table?: () => Record<string, unknown>[], columns?: readonly string[]): string {
  if (format === "human") return human();
  if (format === "json") return JSON.stringify(data, null, 2);
  const rows = table ? table() : listOf(data);
  if (!rows) {
    if (format === "ndjson") return JSON.stringify(data);
    throw new IndxError("validation_failed", `--format ${format} needs a command that returns a list.`);
  }
  if (format === "ndjson") return rows.map((r) => JSON.stringify(r)).join("\n");
  if (format === "files")
    return rows
      .map((r) => cell(r.path ?? r.source ?? r.target ?? r.tag ?? r.linkpath))
      .filter(Boolean)
      .join("\n");
  // An empty list keeps its header (docs/decisions.md, "Empty lists"): csv a header row, md a header-only table.
  const cols = rows.length === 0 && columns ? [...columns] : [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (format === "csv") return [cols.join(","), ...rows.map((r) => cols.map((c) => csvEscape(cell(r[c]))).join(","))].join("\n");
  const md = (s: string) => s.replaceAll("|", "\\|").replace(/\s+/g, " ");
  return [`| ${cols.join(" | ")} |`, `| ${cols.map(() => "---").join(" | ")} |`, ...rows.map((r) => `| ${cols.map((c) => md(cell(r[c]))).join(" | ")} |`)].join(
    "\n",
  );
}

/** What every command prints on a terminal for an empty list (docs/decisions.md, "Empty lists"). */
export const NO_RESULTS = "No results.";

/**
 * The list an operation's output is, when it is a listing: the list field (a LIST_FIELDS name, or
 * a base's rows) of a read that counts or pages it, and the columns of its rows.
 */
export function listingOf(output: TObject): {
  field: string;
  columns: string[];
} | null {
  const props: Record<string, TSchema> = output.properties;
  if (!("total" in props || "count" in props || "next_cursor" in props)) return null;
  const field = [...LIST_FIELDS, "rows"].find((f) => props[f]?.type === "array");
  if (!field) return null;
  return { field, columns: Object.keys(props[field]?.items?.properties ?? {}) };
}

/** Colour helpers for human renderers: plain text when colour is off (a pipe, NO_COLOR). */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

let colorChoice: boolean | null = null;

/** `--color` / `--no-color` on the command line: they win over the environment. */
export function chooseColor(choice: boolean | null): void {
  colorChoice = choice;
}

/**
 * Whether human output on stdout is coloured: `--color` / `--no-color`, else FORCE_COLOR (set and
 * not "0" forces it on, "0" off), else NO_COLOR (any non-empty value turns it off), else whether
 * stdout is a terminal (https://no-color.org and the FORCE_COLOR convention of Node tools).
 */
export function colorOn(): boolean {
  if (colorChoice !== null) return colorChoice;
  const force = process.env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (process.env.NO_COLOR) return false;
  // isatty(1), not process.stdout.isTTY: making process.stdout costs a CLI call milliseconds (src/cli/io.ts).
  return stdoutIsTTY();
}

export function styleFor(color: boolean): Style {
  const sgr = (code: number) => (text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  return { dim: sgr(2), bold: sgr(1), red: sgr(31), green: sgr(32), yellow: sgr(33) };
}

/** The parts of a write's output its human view shows; every write operation's output fits it. */
export interface WriteView {
  warnings?: readonly { message: string }[];
  files?: readonly { path: string; changes?: readonly { line: number; before: string; after: string }[]; diff?: string }[];
  plan_etag?: string | null;
  dry_run?: boolean;
}

/** A write on a terminal: its one-line summary, then every planned or made line change as a diff. */
export function writeDiff(o: WriteView, style: Style, summary: string): string {
  const lines = [summary];
  for (const w of o.warnings ?? []) lines.push(style.dim(`warning: ${w.message}`));
  for (const f of o.files ?? []) {
    if (f.diff !== undefined) {
      lines.push(
        ...f.diff
          .replace(/\n$/, "")
          .split("\n")
          .map((l) => colourDiffLine(l, style)),
      );
      continue;
    }
    lines.push(style.bold(f.path));
    for (const c of f.changes ?? []) {
      lines.push(style.dim(`  L${c.line}`));
      lines.push(style.red(`  - ${c.before}`), style.green(`  + ${c.after}`));
    }
  }
  if (o.plan_etag && o.dry_run) lines.push(style.dim(`apply with: --plan-etag ${o.plan_etag}`));
  return lines.join("\n");
}

/** One line of a unified diff, coloured as `git diff` colours it. */
export function colourDiffLine(line: string, style: Style): string {
  if (line.startsWith("--- ") || line.startsWith("+++ ")) return style.bold(line);
  if (line.startsWith("@@")) return style.dim(line);
  if (line.startsWith("-")) return style.red(line);
  if (line.startsWith("+")) return style.green(line);
  return line;
}

/** The human view of any output without its own renderer: `key: value` lines, nested objects indented. */
export function keyValueLines(o: unknown, indent = ""): string {
  if (!isObject(o)) return `${indent}${cell(o)}`;
  return Object.entries(o)
    .map(([k, v]) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? `${indent}${k}:\n${keyValueLines(v, `${indent}  `)}`
        : `${indent}${k}: ${Array.isArray(v) ? v.map(cell).join(", ") : cell(v)}`,
    )
    .join("\n");
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";
