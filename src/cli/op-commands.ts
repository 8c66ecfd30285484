import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import type { CommandDef } from "citty";
import type { App } from "../app/context.ts";
import { attachmentWrite } from "../attachments/write-ops.ts";
import { baseQuery } from "../bases/ops.ts";
import { canvasPatch, canvasRead, canvasWrite } from "../canvas/ops.ts";
import { IndxError } from "../core/errors.ts";
import { linkBacklinks, linkBrokenAnchors, linkForward, linkOrphans, linkUnresolved } from "../links/ops.ts";
import { vaultConfigGet, vaultStatus } from "../maintenance/ops.ts";
import { vaultList } from "../maintenance/vaults-ops.ts";
import { noteCapture } from "../notes/capture-ops.ts";
import { documentRead } from "../notes/document-ops.ts";
import { noteMove } from "../notes/move-ops.ts";
import { noteExists, noteList, noteOutline, noteRead } from "../notes/ops.ts";
import { noteReadMany } from "../notes/read-many-ops.ts";
import { attachmentGet, chunkGet } from "../notes/retrieval-ops.ts";
import { vaultValidateFrontmatter } from "../notes/validate-ops.ts";
import { noteDelete, notePatch, noteWrite } from "../notes/write-ops.ts";
import { dailyNote } from "../periodic/ops.ts";
import { tagList, tagNotes } from "../tags/ops.ts";
import { tagRename } from "../tags/rename-ops.ts";
import { vaultIndexCommand } from "./admin-commands.ts";
import { baseRows, baseTable } from "./base-table.ts";
import { opCommand } from "./op-command.ts";
import { writeDiff } from "./output.ts";
import { canvasView, noteView } from "./read-views.ts";

const paths = (notes: readonly { path: string }[]) => notes.map((n) => n.path).join("\n");

const fileExists = (ctx: App, path: string) => existsSync(ctx.vault.abs(ctx.vault.safePath(path)));

export const noteCommand: CommandDef = {
  meta: { description: "Notes: get, get-many, list, outline, exists, capture, update, patch, delete, move." },
  subCommands: {
    get: opCommand(noteRead, {
      positionals: ["path"],
      lineSuffix: true,
      human: (o, s, _summary, input) => noteView(o, s, input),
      raw: {
        // A line range is read as it is; the whole note comes as `content`.
        input: (asked) =>
          asked.from !== undefined || asked.lines !== undefined ? { allow_large: true } : { include: ["content" as const], allow_large: true },
        text: (o) => o.range?.text ?? o.content ?? "",
      },
      examples: [
        'indx note get "Projects/Apollo Launch.md"',
        'indx note get "Apollo Launch"            # an Obsidian-style name, resolved like [[Apollo Launch]]',
        'indx note get "Projects/Apollo Launch.md" --include frontmatter,outline,backlinks --json',
        'indx note get "Projects/Apollo Launch.md" --raw > apollo.md',
        'indx note get "Projects/Apollo Launch.md:12-40"   # lines 12 to 40 (":12" reads from line 12 on)',
      ],
    }),
    "get-many": opCommand(noteReadMany, {
      positionals: ["paths"],
      rest: true,
      human: (o, s, summary) =>
        [
          ...o.notes.map((n) => `${s.bold(`==> ${n.path}${n.truncated ? ` (lines 1–${n.range?.to} of ${n.range?.total_lines})` : ""} <==`)}\n${n.content}`),
          ...o.errors.map((e) => s.red(`${e.path}: ${e.message}`)),
          s.dim(summary),
          ...(o.omitted.length ? [s.dim(`omitted: ${o.omitted.map((n) => n.path).join(", ")}`)] : []),
        ].join("\n"),
      examples: [
        'indx note get-many "Projects/Apollo Launch.md" "People/Ada Lovelace.md"',
        "indx note get-many --glob 'Projects/**' --budget-bytes 20000 --json",
      ],
    }),
    list: opCommand(noteList, {
      human: (o, s) => paths(o.notes) + (o.next_cursor ? `\n${s.dim(`more: --cursor ${o.next_cursor}`)}` : ""),
      examples: [
        "indx note list --path-glob 'Projects/**'",
        "indx note list --tag project --fm status=active --sort mtime",
        'indx note list --where \'due < today() + "7d" && status != "done"\'',
      ],
    }),
    outline: opCommand(noteOutline, {
      examples: ['indx note outline "Projects/Apollo Launch.md"'],
      positionals: ["path"],
      human: (o, s) => o.outline.map((h) => `${"  ".repeat(h.level - 1)}${"#".repeat(h.level)} ${h.text}  ${s.dim(`L${h.line}`)}`).join("\n"),
    }),
    exists: opCommand(noteExists, {
      positionals: ["path"],
      exitCode: (o) => (o.exists ? 0 : 3),
      examples: ['indx note exists "Inbox/Idea.md" && echo there'],
    }),
    capture: opCommand(noteCapture, {
      positionals: ["text"],
      stdin: "text",
      json: ["frontmatter"],
      examples: [
        `indx note capture "Call the printer about the quote" --title "Printer quote"`,
        `echo "- [ ] renew passport" | indx note capture --folder Tasks`,
      ],
    }),
    update: opCommand(noteWrite, {
      positionals: ["path"],
      stdin: "body",
      json: ["frontmatter"],
      confirmReplace: { path: "path", exists: fileExists },
      human: writeDiff,
      examples: [
        `indx note update Projects/Alpha.md --body-file alpha.md --frontmatter '{"status":"active"}' --if-match <etag>`,
        `echo '# Idea' | indx note update "Inbox/Idea.md" --if-not-exists`,
      ],
    }),
    patch: opCommand(notePatch, {
      positionals: ["path"],
      json: ["ops"],
      human: writeDiff,
      examples: [
        `indx note patch Projects/Alpha.md --if-match <etag> --ops '[{"op":"append_to_section","heading":"Tasks","markdown":"- [ ] ship it"}]'`,
        `indx note patch Projects/Alpha.md --ops '[{"op":"set_frontmatter","key":"status","value":"done"},{"op":"rename_heading","from":"Todo","to":"Done"}]'`,
        `indx note patch Projects/Alpha.md --ops @edits.json`,
      ],
    }),
    delete: opCommand(noteDelete, { positionals: ["path"], human: writeDiff, examples: ['indx note delete "Inbox/Idea.md"   # to the vault\'s trash'] }),
    move: opCommand(noteMove, {
      positionals: ["from", "to"],
      human: writeDiff,
      examples: [`indx note move "Inbox/Idea.md" "Projects/Idea.md" --dry-run`, `indx note move "Inbox/Idea.md" "Projects/Idea.md"`],
    }),
  },
};

export const dailyCommand = opCommand(dailyNote, {
  human: (o, s, summary) => (o.content === null ? s.dim(summary) : `${s.dim(summary)}\n${o.content}`),
  examples: ["indx daily", "indx daily --create", "indx daily --date 2026-01-07 --create --json path,created", "indx daily --period weekly --tz Europe/Berlin"],
});

export const canvasCommand: CommandDef = {
  meta: { description: "JSON Canvas files: get, create (or replace), patch." },
  subCommands: {
    get: opCommand(canvasRead, { positionals: ["path"], human: (o, s) => canvasView(o, s), examples: ["indx canvas get Demo.canvas"] }),
    create: opCommand(canvasWrite, {
      positionals: ["path"],
      json: ["canvas"],
      confirmReplace: { path: "path", exists: fileExists },
      human: writeDiff,
      examples: [`indx canvas create Board.canvas --canvas '{"nodes":[],"edges":[]}'`, "indx canvas create Board.canvas --canvas @board.json --yes"],
    }),
    patch: opCommand(canvasPatch, {
      positionals: ["path"],
      json: ["ops"],
      human: writeDiff,
      examples: ["indx canvas patch Demo.canvas --ops @canvas-ops.json"],
    }),
  },
};

export const baseCommand: CommandDef = {
  meta: { description: "Obsidian bases: run a view of a .base file, a note's base block, or inline base YAML." },
  subCommands: {
    query: opCommand(baseQuery, {
      positionals: ["path"],
      human: baseTable,
      table: baseRows,
      examples: [
        `indx base query "Bases/Books.base" --view "Top rated"`,
        `indx base query "Bases/Books.base" --format csv`,
        `indx base query --base 'filters: file.hasTag("project")'`,
      ],
    }),
  },
};

const relLabel = (rel: string | undefined) => (rel ? `${rel}: ` : "");

export const linkCommand: CommandDef = {
  meta: { description: "The link graph: backlinks, forward links, unresolved links, links to missing headings and blocks, orphans." },
  subCommands: {
    backlinks: opCommand(linkBacklinks, {
      positionals: ["path"],
      examples: ['indx link backlinks "People/Ada Lovelace.md"', 'indx link backlinks "Categories/Books.md" --rel categories'],
      human: (o, s) => o.backlinks.map((b) => `${b.source}:${b.line}  ${relLabel(b.rel)}${s.dim(b.raw)}`).join("\n"),
    }),
    forward: opCommand(linkForward, {
      positionals: ["path"],
      examples: ['indx link forward "Projects/Apollo Launch.md"', 'indx link forward "References/Out of Control.md" --rel author,genre'],
      human: (o, s) =>
        o.links
          .map(
            (l) =>
              `${l.target ?? s.dim(`(unresolved) ${l.linkpath}`)}  ${relLabel(l.rel)}${s.dim(`L${l.line} ${l.raw}`)}${l.anchor_resolved === false ? `  ${s.dim("(missing anchor)")}` : ""}`,
          )
          .join("\n"),
    }),
    unresolved: opCommand(linkUnresolved, {
      examples: ["indx link unresolved --limit 20"],
      human: (o, s) => o.unresolved.map((u) => `${u.linkpath}  ${s.dim(`${u.count}× in ${u.sources.join(", ")}`)}`).join("\n"),
    }),
    "broken-anchors": opCommand(linkBrokenAnchors, {
      examples: ["indx link broken-anchors --limit 20"],
      human: (o, s) => o.anchors.map((a) => `${a.source}:${a.line}  ${a.target}${a.subpath}  ${s.dim(`no such ${a.kind} (${a.raw})`)}`).join("\n"),
    }),
    orphans: opCommand(linkOrphans, { human: (o) => paths(o.orphans), examples: ["indx link orphans --format files"] }),
  },
};

export const tagCommand: CommandDef = {
  meta: { description: "Tags: list them, the notes that carry one, rename one everywhere." },
  subCommands: {
    list: opCommand(tagList, {
      human: (o, s) => o.tags.map((t) => `#${t.tag}  ${s.dim(String(t.count))}`).join("\n"),
      examples: ["indx tag list", "indx tag list --prefix project"],
    }),
    notes: opCommand(tagNotes, { positionals: ["tag"], human: (o) => paths(o.notes), examples: ["indx tag notes project/apollo"] }),
    rename: opCommand(tagRename, {
      positionals: ["from", "to"],
      human: writeDiff,
      planFirst: true,
      examples: [
        `indx tag rename project/alpha project/beta   # the plan: nothing is written; note its plan_etag`,
        `indx tag rename project/alpha project/beta --plan-etag <plan_etag>`,
        `indx tag rename project/alpha project/beta --yes   # apply without a plan`,
      ],
    }),
  },
};

export const chunkCommand: CommandDef = {
  meta: { description: "Chunks (heading-aware sections) of notes." },
  subCommands: {
    get: opCommand(chunkGet, { positionals: ["id"], human: (o) => o.content, examples: ['indx chunk get "Projects/Apollo Launch.md#2"'] }),
  },
};

export const attachmentCommand: CommandDef = {
  meta: { description: "Attachments (non-Markdown files): metadata or bytes (get), a PDF's or DOCX's text (text), upload (put)." },
  subCommands: {
    get: opCommand(attachmentGet, {
      positionals: ["path"],
      saveTo: {
        input: { download: true },
        bytes: (o) => Buffer.from(o.data_base64 ?? "", "base64"),
        strip: ({ data_base64: _bytes, ...meta }) => meta,
      },
      examples: ["indx attachment get Attachments/diagram.png", "indx attachment get Attachments/diagram.png --output diagram.png"],
    }),
    text: opCommand(documentRead, {
      positionals: ["path"],
      human: (o, s, summary) =>
        [
          ...o.sections.map((x) => `${s.bold(`==> ${o.path}#${x.anchor ?? ""} <==`)}\n${x.text}`),
          ...(o.problem ? [s.yellow(o.problem.message)] : []),
          s.dim(summary),
          ...(o.next_from ? [s.dim(`read on: --from ${o.next_from}`)] : []),
        ].join("\n"),
      examples: ["indx attachment text Papers/Attention.pdf --from 3 --to 4", "indx attachment text Specs/Contract.docx --budget-bytes 20000 --json"],
    }),
    put: opCommand(attachmentWrite, {
      flags: {
        args: {
          file: { type: "string", description: "The file to upload; its name is the attachment's name unless --name says otherwise.", valueHint: "file" },
        },
        toInput: (flags) => (typeof flags.file === "string" && flags.file !== "" ? uploadFrom(flags.file) : {}),
      },
      human: (o, s, summary) => `${s.dim(summary)}\n${o.embed}`,
      examples: [
        "indx attachment put --file ~/Desktop/diagram.png --note Projects/Alpha.md",
        "indx attachment put --file scan.pdf --name 'Invoice 2026-01.pdf' --on-conflict fail --json path,embed",
      ],
    }),
  },
};

/** name and data_base64 of a local file for attachment_write. */
function uploadFrom(file: string): { name: string; data_base64: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new IndxError("validation_failed", "--file: the file could not be read.", { option: "--file" });
  }
  return { name: basename(file), data_base64: bytes.toString("base64") };
}

export const vaultCommand: CommandDef = {
  meta: { description: "The vault and its index: status, index, config, property checks." },
  subCommands: {
    status: opCommand(vaultStatus, { examples: ["indx vault status", "indx vault status --json index"] }),
    list: opCommand(vaultList, {
      examples: ["indx vault list", "indx vault list --json"],
      human: (o, s) =>
        o.vaults
          .map((v) =>
            [
              v.name ?? "(default)",
              v.default && v.name ? "default" : "",
              v.state === "error" ? `error ${v.error}` : v.state.replace("_", " "),
              v.notes === undefined ? "" : `${v.notes} note${v.notes === 1 ? "" : "s"}`,
              s.dim(v.folder ?? ""),
            ]
              .filter(Boolean)
              .join("  "),
          )
          .join("\n"),
    }),
    "validate-frontmatter": opCommand(vaultValidateFrontmatter, {
      examples: ["indx vault validate-frontmatter", `indx vault validate-frontmatter --path-glob "Projects/**" --format md`],
      human: (o, s) => [...o.problems.map((p) => `${p.path}  ${p.message}  ${s.dim(p.reason)}`), s.dim(`${o.total} problems in ${o.checked} notes`)].join("\n"),
    }),
    index: vaultIndexCommand,
    config: {
      meta: { description: "The merged configuration." },
      subCommands: { get: opCommand(vaultConfigGet, { examples: ["indx vault config get --json"] }) },
    },
  },
};
