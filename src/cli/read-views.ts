import type { canvasRead } from "../canvas/ops.ts";
import type { noteRead } from "../notes/ops.ts";
import type { OutputOf } from "../ops/define.ts";
import type { Style } from "./output.ts";
import { clipTo, terminalWidth } from "./width.ts";

type NoteResult = OutputOf<typeof noteRead>;
type CanvasResult = OutputOf<typeof canvasRead>;

/** A value of the frontmatter on one line: lists joined, objects as JSON. */
const shown = (v: unknown): string =>
  v === null || v === undefined ? "" : Array.isArray(v) ? v.map(shown).join(", ") : typeof v === "object" ? JSON.stringify(v) : String(v);

/** `L12` padded, so the rows of a section line up. */
const lineNo = (n: number, width: number) => `L${n}`.padEnd(width + 1);

/**
 * `note get` on a terminal. Without --include (or with only body or content) it prints the note's
 * text, as `cat` would; with other parts, each part asked for as a section a person reads (frontmatter as `key: value`, the outline
 * indented by level, links with where they go, backlinks with where they come from), the text last.
 */
export function noteView(o: NoteResult, s: Style, asked: { include?: readonly string[] | undefined }, width = terminalWidth()): string {
  const text = o.range?.text ?? o.content ?? o.body;
  // Only the text asked for (`--include content`): the file as `cat` prints it.
  if (asked.include === undefined || asked.include.every((part) => part === "body" || part === "content")) return text ?? `${o.path}`;
  const out = [s.bold(o.path) + s.dim(`  ${o.title} · ${o.size} bytes · etag ${o.etag}`)];
  const section = (title: string, lines: string[]) => out.push("", s.bold(title), ...(lines.length ? lines : [s.dim("  (none)")]));
  /** A row: its plain text cut to the width, after a dimmed line number when it has one. */
  const row = (rest: string, line?: { n: number; width: number }) => {
    if (!line) return `  ${clipTo(rest, Math.max(20, width - 2))}`;
    const no = lineNo(line.n, line.width);
    return `  ${s.dim(no)} ${clipTo(rest, Math.max(20, width - 3 - no.length))}`;
  };
  const numberWidth = (items: readonly { line: number }[]) => Math.max(0, ...items.map((i) => String(i.line).length));
  if (o.frontmatter !== undefined || o.frontmatter_error !== undefined)
    section("Frontmatter", [
      ...(o.frontmatter_error ? [s.red(row(o.frontmatter_error))] : []),
      ...Object.entries(o.frontmatter ?? {}).map(([k, v]) => row(`${k}: ${shown(v)}`)),
    ]);
  if (o.outline) {
    const w = numberWidth(o.outline);
    section(
      "Outline",
      o.outline.map((h) => row(`${"  ".repeat(Math.max(0, h.level - 1))}${"#".repeat(h.level)} ${h.text}`, { n: h.line, width: w })),
    );
  }
  if (o.tags) section("Tags", o.tags.length ? [row(o.tags.map((t) => `#${t}`).join(" "))] : []);
  if (o.tasks) {
    const w = numberWidth(o.tasks);
    section(
      "Tasks",
      o.tasks.map((t) => row(`[${t.status}] ${t.text}`, { n: t.line, width: w })),
    );
  }
  if (o.links) {
    const w = numberWidth(o.links);
    section(
      "Links",
      o.links.map((l) => {
        const where = l.target === null ? "(unresolved)" : l.anchor_resolved === false ? `${l.target} (no ${l.subpath})` : l.target;
        return row(`${l.raw} → ${where}`, { n: l.line, width: w });
      }),
    );
  }
  if (o.backlinks)
    section(
      "Backlinks",
      o.backlinks.map((b) => row(`${b.source}:${b.line}  ${b.raw}`)),
    );
  if (o.range) out.push("", s.dim(`lines ${o.range.from}–${o.range.to} of ${o.range.total_lines}`));
  if (text !== undefined) out.push("", s.dim("─".repeat(Math.min(width, 40))), text.replace(/\n$/, ""));
  return out.join("\n");
}

/** `canvas get` on a terminal: each node (its type, what it shows, where it sits) and each edge between them. */
export function canvasView(o: CanvasResult, s: Style, width = terminalWidth()): string {
  const nodes = o.canvas.nodes ?? [];
  const edges = o.canvas.edges ?? [];
  const idWidth = Math.max(2, ...nodes.map((n) => n.id.length), ...edges.map((e) => e.id.length));
  const what = (n: (typeof nodes)[number]) => {
    if (n.type === "text") return (n.text ?? "").replace(/\s+/g, " ").trim();
    if (n.type === "file") return `${n.file ?? ""}${n.subpath ?? ""}`;
    if (n.type === "link") return n.url ?? "";
    return n.label ?? "";
  };
  const nodeName = new Map(nodes.map((n) => [n.id, n.type === "group" ? n.label || n.id : n.id]));
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const out = [s.bold(o.path) + s.dim(`  ${plural(nodes.length, "node")} · ${plural(edges.length, "edge")} · etag ${o.etag}`)];
  out.push("", s.bold("Nodes"));
  if (!nodes.length) out.push(s.dim("  (none)"));
  for (const n of nodes) {
    const head = `  ${n.id.padEnd(idWidth)}  ${n.type.padEnd(5)}  `;
    const place = `  (${n.x}, ${n.y}) ${n.width}×${n.height}`;
    out.push(head + clipTo(what(n), Math.max(10, width - head.length - place.length)) + s.dim(place));
  }
  out.push("", s.bold("Edges"));
  if (!edges.length) out.push(s.dim("  (none)"));
  for (const e of edges) {
    const label = e.label ? `  “${e.label}”` : "";
    out.push(
      `  ${clipTo(`${e.id.padEnd(idWidth)}  ${nodeName.get(e.fromNode) ?? e.fromNode} → ${nodeName.get(e.toNode) ?? e.toNode}${label}`, Math.max(20, width - 2))}`,
    );
  }
  return out.join("\n");
}
