import { existsSync } from "node:fs";
import type { CommandDef } from "citty";
import { canvasPatch, canvasRead, canvasWrite } from "../canvas/ops.ts";
import { linkBacklinks, linkForward, linkOrphans, linkUnresolved } from "../links/ops.ts";
import { noteMove } from "../notes/move-op.ts";
import { noteExists, noteList, noteOutline, noteRead } from "../notes/ops.ts";
import { attachmentGet, chunkGet } from "../notes/retrieval.ts";
import { noteDelete, notePatch, noteWrite } from "../notes/write-ops.ts";
import type { OpContext } from "../ops/context.ts";
import { related, vaultSearch } from "../search/ops.ts";
import { tagList, tagNotes } from "../tags/ops.ts";
import { tagRename } from "../tags/rename-op.ts";
import { vaultConfigGet, vaultStatus } from "../vault/ops.ts";
import { vaultIndexCommand } from "./admin-commands.ts";
import { opCommand } from "./op-command.ts";

/** CLI names of the read operations (docs/contracts.md, Operations). */
export const searchCommand = opCommand(vaultSearch, { positionals: ["q"], rest: true });
export const relatedCommand = opCommand(related, { positionals: ["id"] });

const fileExists = (ctx: OpContext, path: string) => existsSync(ctx.vault.abs(ctx.vault.safePath(path)));

export const noteCommand: CommandDef = {
  meta: { description: "Notes: get, list, outline, exists, update, patch, delete, move." },
  subCommands: {
    get: opCommand(noteRead, { positionals: ["path"] }),
    list: opCommand(noteList),
    outline: opCommand(noteOutline, { positionals: ["path"] }),
    exists: opCommand(noteExists, { positionals: ["path"], exitCode: (o: { exists: boolean }) => (o.exists ? 0 : 3) }),
    update: opCommand(noteWrite, {
      positionals: ["path"],
      stdin: "body",
      json: ["frontmatter"],
      confirmReplace: { path: "path", exists: fileExists },
      examples: [
        `echo '# Idea' | indx note update "Inbox/Idea.md" --if-not-exists`,
        `indx note update Projects/Alpha.md --body-file alpha.md --frontmatter '{"status":"active"}' --if-match <etag>`,
      ],
    }),
    patch: opCommand(notePatch, {
      positionals: ["path"],
      json: ["ops"],
      examples: [
        `indx note patch Projects/Alpha.md --if-match <etag> --ops '[{"op":"append_to_section","heading":"Tasks","markdown":"- [ ] ship it"}]'`,
        `indx note patch Projects/Alpha.md --ops '[{"op":"set_frontmatter","key":"status","value":"done"},{"op":"rename_heading","from":"Todo","to":"Done"}]'`,
        `indx note patch Projects/Alpha.md --ops @edits.json`,
      ],
    }),
    delete: opCommand(noteDelete, { positionals: ["path"] }),
    move: opCommand(noteMove, {
      positionals: ["from", "to"],
      examples: [`indx note move "Inbox/Idea.md" "Projects/Idea.md" --dry-run`, `indx note move "Inbox/Idea.md" "Projects/Idea.md"`],
    }),
  },
};

export const canvasCommand: CommandDef = {
  meta: { description: "JSON Canvas files: get, create (or replace), patch." },
  subCommands: {
    get: opCommand(canvasRead, { positionals: ["path"] }),
    create: opCommand(canvasWrite, { positionals: ["path"], json: ["canvas"], confirmReplace: { path: "path", exists: fileExists } }),
    patch: opCommand(canvasPatch, { positionals: ["path"], json: ["ops"] }),
  },
};

export const linkCommand: CommandDef = {
  meta: { description: "The link graph: backlinks, forward links, unresolved links, orphans." },
  subCommands: {
    backlinks: opCommand(linkBacklinks, { positionals: ["path"] }),
    forward: opCommand(linkForward, { positionals: ["path"] }),
    unresolved: opCommand(linkUnresolved),
    orphans: opCommand(linkOrphans),
  },
};

export const tagCommand: CommandDef = {
  meta: { description: "Tags: list them, the notes that carry one, rename one everywhere." },
  subCommands: {
    list: opCommand(tagList),
    notes: opCommand(tagNotes, { positionals: ["tag"] }),
    rename: opCommand(tagRename, {
      positionals: ["from", "to"],
      examples: [
        `indx tag rename project/alpha project/beta --dry-run   # note the plan_etag`,
        `indx tag rename project/alpha project/beta --plan-etag <plan_etag>`,
      ],
    }),
  },
};

export const chunkCommand: CommandDef = {
  meta: { description: "Chunks (heading-aware sections) of notes." },
  subCommands: { get: opCommand(chunkGet, { positionals: ["id"] }) },
};

export const attachmentCommand: CommandDef = {
  meta: { description: "Attachments (non-Markdown files): metadata, or bytes with --download." },
  subCommands: { get: opCommand(attachmentGet, { positionals: ["path"] }) },
};

export const vaultCommand: CommandDef = {
  meta: { description: "The vault and its index: status, index, config." },
  subCommands: {
    status: opCommand(vaultStatus),
    index: vaultIndexCommand,
    config: { meta: { description: "The merged configuration." }, subCommands: { get: opCommand(vaultConfigGet) } },
  },
};
