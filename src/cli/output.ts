import { IndxError } from "../core/errors.ts";

export type Format = "human" | "json" | "ndjson" | "csv" | "md" | "files";
export const FORMATS = ["json", "ndjson", "csv", "md", "files"] as const;

/** Lists in operation outputs that --format ndjson|csv|md|files turns into rows. */
const LIST_FIELDS = ["results", "notes", "tags", "backlinks", "links", "unresolved", "orphans", "outline"];

export function chooseFormat(flags: { json?: boolean; format?: string }, isTty: boolean): Format {
  if (flags.format) {
    if (!(FORMATS as readonly string[]).includes(flags.format))
      throw new IndxError("validation_failed", `Unknown --format ${flags.format}; use ${FORMATS.join(", ")}.`, { known: FORMATS });
    return flags.format as Format;
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

/** Renders an operation's output for stdout in the chosen format. */
export function render(data: unknown, format: Format, human: (d: unknown) => string): string {
  if (format === "human") return human(data);
  if (format === "json") return JSON.stringify(data, null, 2);
  const rows = listOf(data);
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
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (format === "csv") return [cols.join(","), ...rows.map((r) => cols.map((c) => csvEscape(cell(r[c]))).join(","))].join("\n");
  const md = (s: string) => s.replaceAll("|", "\\|").replace(/\s+/g, " ");
  return [`| ${cols.join(" | ")} |`, `| ${cols.map(() => "---").join(" | ")} |`, ...rows.map((r) => `| ${cols.map((c) => md(cell(r[c]))).join(" | ")} |`)].join(
    "\n",
  );
}

const dim = (s: string, color: boolean) => (color ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s: string, color: boolean) => (color ? `\x1b[1m${s}\x1b[0m` : s);

/** Human renderers for the outputs people read most; everything else falls back to key: value lines. */
export function humanRenderer(opName: string, color: boolean, writeSummary?: (d: unknown) => string): (d: unknown) => string {
  return (d: unknown) => {
    const o = d as Record<string, any>;
    if (writeSummary) return renderWrite(o, writeSummary(d), color);
    switch (opName) {
      case "vault_search":
      case "related": {
        const lines: string[] = [];
        for (const w of o.warnings ?? []) lines.push(dim(`warning: ${w.message}`, color));
        if (!o.results.length) lines.push("No results.");
        for (const r of o.results) {
          lines.push(`${bold(r.path, color)}${r.heading ? dim(` › ${r.heading}`, color) : ""}  ${dim(r.score.toFixed(3), color)}`);
          if (r.snippet) lines.push(`    ${r.snippet.replace(/\*\*(.+?)\*\*/g, color ? "\x1b[33m$1\x1b[0m" : "$1")}`);
        }
        if (o.next_cursor) lines.push(dim(`more: --cursor ${o.next_cursor}`, color));
        return lines.join("\n");
      }
      case "note_read":
        return o.content ?? o.body ?? generic(o);
      case "chunk_get":
        return o.content;
      case "note_list":
        return o.notes.map((n: any) => n.path).join("\n") + (o.next_cursor ? `\n${dim(`more: --cursor ${o.next_cursor}`, color)}` : "");
      case "note_outline":
        return o.outline.map((h: any) => `${"  ".repeat(h.level - 1)}${"#".repeat(h.level)} ${h.text}  ${dim(`L${h.line}`, color)}`).join("\n");
      case "tag_list":
        return o.tags.map((t: any) => `#${t.tag}  ${dim(String(t.count), color)}`).join("\n");
      case "tag_notes":
        return o.notes.map((n: any) => n.path).join("\n");
      case "link_backlinks":
        return o.backlinks.map((b: any) => `${b.source}:${b.line}  ${dim(b.raw, color)}`).join("\n") || "No backlinks.";
      case "link_forward":
        return (
          o.links.map((l: any) => `${l.target ?? dim(`(unresolved) ${l.linkpath}`, color)}  ${dim(`L${l.line} ${l.raw}`, color)}`).join("\n") || "No links."
        );
      case "link_unresolved":
        return o.unresolved.map((u: any) => `${u.linkpath}  ${dim(`${u.count}× in ${u.sources.join(", ")}`, color)}`).join("\n") || "No unresolved links.";
      case "link_orphans":
        return o.orphans.map((n: any) => n.path).join("\n") || "No orphans.";
      default:
        return generic(o);
    }
  };
}

/** A write on a terminal: its one-line summary, then every planned or made line change as a diff. */
function renderWrite(o: Record<string, any>, summary: string, color: boolean): string {
  const red = (t: string) => (color ? `\x1b[31m${t}\x1b[0m` : t);
  const green = (t: string) => (color ? `\x1b[32m${t}\x1b[0m` : t);
  const lines = [summary];
  for (const w of o.warnings ?? []) lines.push(dim(`warning: ${w.message}`, color));
  for (const f of o.files ?? []) {
    lines.push(bold(f.path, color));
    for (const c of f.changes ?? []) {
      lines.push(dim(`  L${c.line}`, color));
      lines.push(red(`  - ${c.before}`), green(`  + ${c.after}`));
    }
  }
  if (o.plan_etag && o.dry_run) lines.push(dim(`apply with: --plan-etag ${o.plan_etag}`, color));
  return lines.join("\n");
}

function generic(o: unknown, indent = ""): string {
  if (o === null || typeof o !== "object") return `${indent}${cell(o)}`;
  return Object.entries(o as Record<string, unknown>)
    .map(([k, v]) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? `${indent}${k}:\n${generic(v, `${indent}  `)}`
        : `${indent}${k}: ${Array.isArray(v) ? v.map(cell).join(", ") : cell(v)}`,
    )
    .join("\n");
}
