import { ErrorCode, type GetPromptResult, type Prompt } from "@modelcontextprotocol/sdk/types.js";
import { OPERATION_BY_NAME } from "../app/registry.ts";
import { IndxError } from "../core/errors.ts";
import type { Scope } from "../ops/define.ts";
import type { Grant } from "../ops/grant.ts";
import { hasScope } from "../ops/invoke.ts";
import { type PeriodicNote, periodicNote } from "../periodic/note.ts";
import type { Vault } from "../vault/vault.ts";
import { RpcError } from "./errors.ts";

/**
 * Prompts (docs/mcp.md, Prompts): starting points that tell an agent which tools to call, in which
 * order. Each carries a recommended tool allow-list in `_meta["indx/allowed_tools"]`, narrowed on
 * prompts/get to the tools this session can call. Write steps name the write tools (note_write,
 * note_patch); when a session cannot call them, the prompt says to propose instead.
 */

const ALLOWED_TOOLS_META = "indx/allowed_tools";

/** What completion/complete offers for a prompt argument (src/mcp/completions.ts). */
export type PromptArgumentKind = "date" | "boolean";

interface PromptDef {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required?: boolean; kind?: PromptArgumentKind }[];
  tools: string[];
  /**
   * The single user message; `canWrite` tells whether the session can call the write tools,
   * `canRead` whether its folder grant reads a path (docs/permissions.md): a hidden file is never named.
   */
  text(args: Record<string, string>, canWrite: boolean, vault: Vault, canRead: (path: string) => boolean): string;
}

const WRITE_TOOLS = ["note_write", "note_patch"];

const today = () => isoDate(new Date());
export function isoDate(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

function dateArg(args: Record<string, string>, name: string): string {
  const v = args[name]?.trim();
  if (!v) return today();
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const d = m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
  if (!d || isoDate(d) !== v) throw new IndxError("validation_failed", `${name} must be a date YYYY-MM-DD`, { field: name });
  return v;
}

function intArg(args: Record<string, string>, name: string, def: number, max: number): number {
  const v = args[name]?.trim();
  if (!v) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new IndxError("validation_failed", `${name} must be an integer from 1 to ${max}`, { field: name });
  return n;
}

function boolArg(args: Record<string, string>, name: string, def: boolean): boolean {
  const v = args[name]?.trim().toLowerCase();
  if (!v) return def;
  if (["true", "1", "yes"].includes(v)) return true;
  if (["false", "0", "no"].includes(v)) return false;
  throw new IndxError("validation_failed", `${name} must be true or false`, { field: name });
}

/** Monday..Sunday of the ISO week holding `date`, and its label 2026-W02. */
function isoWeek(date: string): { start: string; end: string; label: string } {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  const dow = (day.getUTCDay() + 6) % 7; // Monday = 0
  const start = new Date(day.getTime() - dow * 86_400_000);
  const end = new Date(start.getTime() + 6 * 86_400_000);
  const thursday = new Date(start.getTime() + 3 * 86_400_000);
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((thursday.getTime() - yearStart) / 86_400_000 + 1) / 7);
  const iso = (t: Date) => t.toISOString().slice(0, 10);
  return { start: iso(start), end: iso(end), label: `${thursday.getUTCFullYear()}-W${String(week).padStart(2, "0")}` };
}

/** A note_list glob for every note under a folder ("" is the whole vault). */
const folderGlob = (folder: string) => (folder ? `${folder}/**` : "**");

/** The weekly note holding `day`, when the vault's Periodic Notes settings have weekly notes. */
function weeklyNote(vault: Vault, day: string): PeriodicNote | null {
  try {
    return periodicNote(vault, { period: "weekly", date: day });
  } catch (err) {
    if (err instanceof IndxError && err.details?.reason === "not_configured") return null;
    throw err;
  }
}

const writeOr = (canWrite: boolean, write: string, propose: string) =>
  canWrite ? write : `${propose} (this session cannot write: show the proposed change to the user instead of applying it).`;

const PROMPTS: PromptDef[] = [
  {
    name: "vault_summary",
    title: "Summarize the vault",
    description: "Summarize the state of the vault: size, index health, recent activity and the main tags.",
    arguments: [],
    tools: ["vault_status", "note_list", "tag_list", "link_unresolved", "link_orphans"],
    text: () =>
      [
        "Summarize the state of this indx vault for me.",
        "1. Call vault_status: report the counts (notes, attachments, links, unresolved links, tags) and any notes that need attention (its warnings).",
        '2. Call note_list with sort="mtime" and limit=10: these are the most recently changed notes; list them with their titles and dates.',
        "3. Call tag_list: name the ten most used tags and what they suggest the vault is about.",
        "4. Call link_unresolved with limit=10 and link_orphans with limit=10: mention the broken links and unconnected notes worth attention.",
        "End with a short paragraph: what the vault holds, what changed lately, and one or two suggested clean-ups. Do not read whole notes for this summary.",
      ].join("\n"),
  },
  {
    name: "daily_note",
    title: "Open or create a daily note",
    description: "Open or create the daily note of a day (today by default) where the vault's daily-notes settings put it, from its template.",
    arguments: [{ name: "date", description: "The day, YYYY-MM-DD (default: today, server time).", kind: "date" }],
    tools: ["daily_note", "note_read", "note_list", "vault_search", "note_patch"],
    text: (args, canWrite, vault, canRead) => {
      const date = dateArg(args, "date");
      const note = periodicNote(vault, { period: "daily", date });
      const named = note.settings.template && canRead(note.settings.template);
      const template = named ? ` and its template ${note.settings.template}` : "";
      return [
        `Open the daily note for ${date}: ${note.path} (the vault's daily-notes settings${template}).`,
        `1. Call daily_note with date "${date}": it returns the note's content when it exists.`,
        `2. If it exists, summarize it; call note_read with path "${note.path}" and include ["tasks"] to list its open tasks.`,
        `3. If it does not exist: call note_list with path_glob "${folderGlob(note.settings.folder)}", sort "mtime" and limit 2, and note_read the latest earlier daily note to carry over its unchecked tasks.`,
        `4. ${writeOr(
          canWrite,
          `Create the note with daily_note (date "${date}", create true): it applies the vault's template. Then add the carried-over tasks with note_patch, passing the etag daily_note returned as if_match.`,
          `Draft the carried-over tasks for the new note at ${note.path}`,
        )}`,
      ].join("\n");
    },
  },
  {
    name: "link_orphans",
    title: "Connect orphan notes",
    description: "Walk notes that have no links in or out and propose links that connect them to the rest of the vault.",
    arguments: [{ name: "limit", description: "How many orphans to handle (default 10, at most 100)." }],
    tools: ["link_orphans", "note_read", "related", "vault_search", "link_backlinks", "note_patch"],
    text: (args, canWrite) => {
      const limit = intArg(args, "limit", 10, 100);
      return [
        `Find orphan notes and connect them (at most ${limit}).`,
        `1. Call link_orphans with limit=${limit}.`,
        '2. For each orphan: call note_read (include ["frontmatter","body","tags"]) to learn what it is about, then related with its path (or vault_search with its key terms) to find two or three notes it belongs with.',
        "3. For each proposal give: the orphan, the target note, the [[wikilink]] to add, where (which heading), and one sentence of why.",
        `4. ${writeOr(
          canWrite,
          "After the user approves, add each link with note_patch (an append_to_section or insert_after_heading op, passing the etag from note_read as if_match)",
          "Present the proposals as a list",
        )}`,
        "Never link notes only because they share a common word; skip an orphan when nothing fits.",
      ].join("\n");
    },
  },
  {
    name: "cleanup_unresolved_links",
    title: "Fix broken links",
    description: "Find [[links]] that point at no note and propose (or apply) fixes: a corrected target, a new note, or removal.",
    arguments: [{ name: "dry_run", description: "true (default): only propose fixes; false: apply the approved ones.", kind: "boolean" }],
    tools: ["link_unresolved", "vault_search", "note_exists", "note_read", "note_patch", "note_write"],
    text: (args, canWrite) => {
      const dryRun = boolArg(args, "dry_run", true);
      return [
        `Clean up unresolved links${dryRun ? " (dry run: propose only, change nothing)" : ""}.`,
        "1. Call link_unresolved with limit=50; targets are sorted by how often they are referenced.",
        "2. For each target: call vault_search with the target text (and note_exists for likely spellings) to find the note it probably meant — a renamed note, a typo, a different folder.",
        "3. Classify each: retarget (name the existing note), create (a note worth writing; suggest its path and a one-line stub), or remove (dead reference). Call note_read on a source note when the context decides it.",
        dryRun
          ? "4. Report a table: target, sources, proposed fix, confidence. Do not call any write tool."
          : `4. ${writeOr(
              canWrite,
              "For each confirmed fix, note_read the source note and rewrite the link with note_patch (pass the etag as if_match); create stubs with note_write (if_not_exists true). Report what changed",
              "Report a table: target, sources, proposed fix, confidence",
            )}`,
      ].join("\n");
    },
  },
  {
    name: "weekly_review",
    title: "Weekly review",
    description: "Gather the notes changed during one week and write a review note from them.",
    arguments: [{ name: "week_of", description: "Any date in the week, YYYY-MM-DD (default: today). Weeks run Monday to Sunday.", kind: "date" }],
    tools: ["note_list", "note_read", "vault_search", "tag_notes", "link_backlinks", "note_exists", "note_write", "daily_note"],
    text: (args, canWrite, vault) => {
      const day = dateArg(args, "week_of");
      const week = isoWeek(day);
      const daily = periodicNote(vault, { period: "daily", date: day });
      const weekly = weeklyNote(vault, day);
      const path = weekly?.path ?? `Reviews/${week.label}.md`;
      return [
        `Write the weekly review for ${week.label} (${week.start} to ${week.end}).`,
        // One filtered listing of the week, not a walk through every note changed since (issue 30).
        `1. Call note_list with where '${weekWhere(week.start, week.end)}' and sort "mtime": the notes changed that week (page with its cursor only if it has a next_cursor).`,
        `2. Call note_list with path_glob "${folderGlob(daily.settings.folder)}" and read the daily notes of that week with note_read (include ["body","tasks"]).`,
        '3. For the other changed notes, call note_read with include ["frontmatter","outline","tasks"] (not the whole body unless needed).',
        "4. Write the review: highlights, decisions, open tasks (with their notes as [[links]]), and themes (tags) of the week.",
        `5. ${writeOr(
          canWrite,
          weekly
            ? `Call daily_note with period "weekly", date "${day}" and create true: it creates the week's note ${path} from the vault's template (or returns it); add the review to it with note_patch, passing its etag as if_match, linking every note it mentions`
            : `Call note_exists for "${path}"; if it is free, save the review there with note_write (if_not_exists true), linking every note it mentions`,
          `Show the review as Markdown ready to be saved at ${path}`,
        )}`,
      ].join("\n");
    },
  },
];

/** A Bases expression for notes modified from `start` to `end` (YYYY-MM-DD), both days included. */
function weekWhere(start: string, end: string): string {
  const after = new Date(`${end}T00:00:00Z`);
  after.setUTCDate(after.getUTCDate() + 1);
  return `file.mtime >= date("${start}") && file.mtime < date("${after.toISOString().slice(0, 10)}")`;
}

const BY_NAME = new Map(PROMPTS.map((p) => [p.name, p]));

/** The recommended tools of a prompt that exist and that these scopes may call. */
function allowedTools(def: PromptDef, scopes: ReadonlySet<Scope>): string[] {
  return def.tools.filter((t) => {
    const op = OPERATION_BY_NAME.get(t);
    return op !== undefined && hasScope(scopes, op.scope);
  });
}

/** The kind of a prompt's argument, or undefined for an unknown prompt or argument (or one without completions). */
export function promptArgumentKind(prompt: string, argument: string): PromptArgumentKind | undefined {
  return BY_NAME.get(prompt)?.arguments.find((a) => a.name === argument)?.kind;
}

export function listPrompts(): Prompt[] {
  return PROMPTS.map((p) => ({
    name: p.name,
    title: p.title,
    description: p.description,
    arguments: p.arguments.map((a) => ({ name: a.name, description: a.description, required: a.required ?? false })),
    _meta: { [ALLOWED_TOOLS_META]: p.tools },
  }));
}

export function getPrompt(
  name: string,
  args: Record<string, string> | undefined,
  scopes: ReadonlySet<Scope>,
  vault: Vault,
  grant: Grant | null = null,
): GetPromptResult {
  const def = BY_NAME.get(name);
  if (!def) {
    // Like an unknown tool name: a malformed request (Invalid params), not a missing resource.
    const shown = name.slice(0, 100);
    const e = new IndxError("not_found", `No prompt named ${shown}. Call prompts/list.`, { prompt: shown });
    throw new RpcError(ErrorCode.InvalidParams, e.message, e.toJSON());
  }
  const known = new Set(def.arguments.map((a) => a.name));
  for (const k of Object.keys(args ?? {})) if (!known.has(k)) throw new IndxError("validation_failed", `${name} has no argument ${k}`, { field: k });
  const tools = allowedTools(def, scopes);
  const canWrite = WRITE_TOOLS.some((t) => tools.includes(t));
  // A template is named without its extension; the grant's globs match the file's.
  const canRead = (path: string) => !grant || grant.canRead(/\.[A-Za-z0-9]+$/.test(path) ? path : `${path}.md`);
  const text = `${def.text(args ?? {}, canWrite, vault, canRead)}\n\nUse only these tools: ${tools.join(", ")}.`;
  return {
    description: def.description,
    messages: [{ role: "user", content: { type: "text", text } }],
    _meta: { [ALLOWED_TOOLS_META]: tools },
  };
}
