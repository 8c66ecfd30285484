import type { ArgsDef, CommandDef } from "citty";
import { aiAsk } from "../ai/ops/ask/ask-ops.ts";
import { aiExtract } from "../ai/ops/extract/extract-ops.ts";
import { aiMetadata } from "../ai/ops/metadata/metadata-ops.ts";
import { aiRelate } from "../ai/ops/relate/relate-ops.ts";
import { aiStatus } from "../ai/ops/status-ops.ts";
import { aiSummarize } from "../ai/ops/summarize/summarize-ops.ts";
import { aiTag } from "../ai/ops/tag/tag-ops.ts";
import { aiToc } from "../ai/ops/toc/toc-ops.ts";
import type { AiScope } from "../ai/scope.ts";
import { IndxError } from "../core/errors.ts";
import type { OutputOf } from "../ops/define.ts";
import { APPLY_ARGS, applyFromFlags, fieldsFromFlags, settledLines } from "./ai-apply-view.ts";
import { allFlagValues, opCommand, parseJsonFlag } from "./op-command.ts";
import type { Style } from "./output.ts";
import { relateRows, relateTable } from "./relate-table.ts";

/** The scope flags every scoped AI command takes, one per kind of scope (docs/contracts.md, AI runtime: scopes). */
const SCOPE_ARGS: ArgsDef = {
  "scope-paths": { type: "string", description: "Notes to work on (repeatable or comma-separated).", valueHint: "paths" },
  "scope-glob": { type: "string", description: "Notes whose path matches this glob, e.g. 'Projects/**'.", valueHint: "glob" },
  "scope-tag": { type: "string", description: "Notes with this tag.", valueHint: "tag" },
  "scope-query": { type: "string", description: "The notes a search finds.", valueHint: "query" },
  note: { type: "string", description: "One note (with --include-linked N: and the notes it links to, N hops out).", valueHint: "path" },
  "include-linked": { type: "string", description: "With --note: follow links this many hops (0–3).", valueHint: "n" },
};

function scopeFromFlags(flags: Record<string, unknown>, rawArgs: string[]): AiScope | undefined {
  const given: AiScope[] = [];
  const paths = allFlagValues(rawArgs, "scope-paths");
  if (paths.length) given.push({ kind: "paths", paths });
  if (typeof flags["scope-glob"] === "string") given.push({ kind: "glob", path_glob: flags["scope-glob"] });
  if (typeof flags["scope-tag"] === "string") given.push({ kind: "tag", tag: flags["scope-tag"].replace(/^#/, "") });
  if (typeof flags["scope-query"] === "string") given.push({ kind: "query", q: flags["scope-query"] });
  if (typeof flags.note === "string") {
    const hops = flags["include-linked"];
    given.push({ kind: "note", path: flags.note, ...(hops !== undefined ? { include_linked: Number(hops) } : {}) });
  }
  if (given.length > 1)
    throw new IndxError("validation_failed", "Give one scope: --scope-paths, --scope-glob, --scope-tag, --scope-query or --note.", { option: "--scope-*" });
  return given[0];
}

/** ai_relate's source from --path (one or more) or a --scope-* flag, its candidates from --candidates-glob, --mode as retrieve_mode. */
function relateInput(flags: Record<string, unknown>, rawArgs: string[]) {
  const paths = allFlagValues(rawArgs, "path");
  const scope = scopeFromFlags(flags, rawArgs);
  if (paths.length && scope) throw new IndxError("validation_failed", "Give the source once: --path, or one --scope-* flag.", { option: "--path" });
  const [only] = paths;
  const source = paths.length > 1 ? { kind: "paths" as const, paths } : only !== undefined ? { kind: "path" as const, path: only } : scope;
  const glob = flags["candidates-glob"];
  return {
    ...(source ? { source } : {}),
    ...(typeof glob === "string" ? { candidates: { kind: "glob" as const, path_glob: glob } } : {}),
    ...(typeof flags.mode === "string" ? { retrieve_mode: flags.mode as "lexical" | "semantic" | "hybrid" } : {}),
  };
}

const scopeFlags = { args: SCOPE_ARGS, toInput: (flags: Record<string, unknown>, rawArgs: string[]) => ({ scope: scopeFromFlags(flags, rawArgs) }) };

/** Citations under the text: path:line and the quote. */
function citationLines(citations: readonly { path: string; line?: number; snippet?: string }[], s: Style): string[] {
  return citations.map((c, i) => `${s.dim(`[${i + 1}]`)} ${s.bold(`${c.path}${c.line ? `:${c.line}` : ""}`)}${c.snippet ? s.dim(`  “${c.snippet}”`) : ""}`);
}

const warningLines = (warnings: readonly { message: string }[], s: Style) => warnings.map((w) => s.dim(`warning: ${w.message}`));

function askHuman(o: OutputOf<typeof aiAsk>, s: Style): string {
  return [o.answer, "", ...citationLines(o.citations, s), ...warningLines(o.warnings, s)].join("\n").trimEnd();
}

function summaryHuman(o: OutputOf<typeof aiSummarize>, s: Style): string {
  const m = o.summary;
  return [
    ...(m.tldr ? [s.bold(m.tldr), ""] : []),
    m.text,
    ...(m.key_points?.length ? ["", ...m.key_points.map((p) => `• ${p}`)] : []),
    ...(m.open_questions?.length ? ["", s.bold("Open questions"), ...m.open_questions.map((q) => `? ${q}`)] : []),
    "",
    ...citationLines(o.citations, s),
    ...warningLines(o.warnings, s),
  ]
    .join("\n")
    .trimEnd();
}

const TAG_ARGS: ArgsDef = {
  "use-existing": { type: "boolean", description: "Offer the vault's most used tags to the model (default; --no-use-existing turns it off)." },
  "allow-new": { type: "boolean", description: "Allow tags the vault does not have yet (default; --no-allow-new turns it off)." },
  candidates: { type: "string", description: "Only these tags (repeatable or comma-separated).", valueHint: "tags" },
  forbid: { type: "string", description: "Never these tags (repeatable or comma-separated).", valueHint: "tags" },
  namespace: { type: "string", description: "Only tags under this one.", valueHint: "tag" },
  "max-per-note": { type: "string", description: "Tags per note at most (default 5).", valueHint: "n" },
  "min-confidence": { type: "string", description: "Drop tags under this confidence, 0–1 (default 0.6).", valueHint: "n" },
};

/** The vocabulary object from its flags; undefined when none is given. */
function vocabularyFromFlags(flags: Record<string, unknown>, rawArgs: string[]) {
  const list = (name: string) => allFlagValues(rawArgs, name).map((t) => t.replace(/^#/, ""));
  const vocabulary = {
    ...(rawArgs.includes("--no-use-existing") ? { use_existing: false } : {}),
    ...(rawArgs.includes("--no-allow-new") ? { allow_new: false } : {}),
    ...(list("candidates").length ? { candidates: list("candidates") } : {}),
    ...(list("forbid").length ? { forbid: list("forbid") } : {}),
    ...(typeof flags.namespace === "string" ? { namespace: flags.namespace.replace(/^#/, "") } : {}),
    ...(flags["max-per-note"] !== undefined ? { max_per_note: Number(flags["max-per-note"]) } : {}),
    ...(flags["min-confidence"] !== undefined ? { min_confidence: Number(flags["min-confidence"]) } : {}),
  };
  return Object.keys(vocabulary).length ? vocabulary : undefined;
}

function tagHuman(o: OutputOf<typeof aiTag>, s: Style, summary: string): string {
  const notes = o.suggestions.map((n) =>
    [s.bold(n.path), ...n.tags.map((t) => `  #${t.tag} ${s.dim(`${t.confidence.toFixed(2)}${t.is_new ? " new" : ""}`)}`)].join("\n"),
  );
  return [summary, ...notes, ...settledLines(o, s)].join("\n");
}

/** `--schema-file PATH` (or - for stdin): the caller's JSON Schema; `--schema` takes it inline. */
function schemaFromFlags(flags: Record<string, unknown>): Record<string, unknown> | undefined {
  const file = flags["schema-file"];
  if (typeof file !== "string" || file === "") return undefined;
  if (typeof flags.schema === "string")
    throw new IndxError("validation_failed", "Give the schema once: --schema or --schema-file.", { option: "--schema-file" });
  const schema = parseJsonFlag("schema-file", file === "-" ? "-" : `@${file}`);
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new IndxError("ai_schema_invalid", "The schema must be a JSON object.", { errors: [{ path: "", message: "The schema must be a JSON object." }] });
  return schema as Record<string, unknown>;
}

function extractHuman(o: OutputOf<typeof aiExtract>, s: Style, summary: string): string {
  const notes = o.results.map((r) =>
    [
      s.bold(r.path),
      ...JSON.stringify(r.data, null, 2)
        .split("\n")
        .map((l) => `  ${l}`),
    ].join("\n"),
  );
  return [summary, ...notes, ...settledLines(o, s)].join("\n");
}

function metadataHuman(o: OutputOf<typeof aiMetadata>, s: Style, summary: string): string {
  const notes = o.results.map((r) =>
    [
      s.bold(r.path),
      ...Object.entries(r.fields).map(([key, f]) => `  ${key}: ${f.value === null ? s.dim("—") : JSON.stringify(f.value)} ${s.dim(f.confidence.toFixed(2))}`),
    ].join("\n"),
  );
  return [summary, ...notes, ...settledLines(o, s)].join("\n");
}

export const aiCommand: CommandDef = {
  meta: { description: "Grounded AI over the vault: ask, summarize, table of contents, relate, tags, metadata, extraction, status." },
  subCommands: {
    status: opCommand(aiStatus, {
      human: (o, s) =>
        [
          o.enabled ? s.bold("AI on") : s.bold("AI off"),
          `chat        ${o.chat ? `${o.chat.provider}/${o.chat.model}` : "none"}`,
          `embeddings  ${o.embeddings ? `${o.embeddings.provider}/${o.embeddings.model}${o.embeddings.dimension ? ` (${o.embeddings.dimension} dimensions)` : ""}` : "none"}`,
          `operations  ${o.operations.join(", ") || "none"}`,
          `spend today $${o.spend_today_usd.toFixed(4)}${o.limits.daily_cost_usd !== null ? ` of $${o.limits.daily_cost_usd}` : ""}`,
          ...(o.message ? [s.dim(o.message)] : []),
        ].join("\n"),
    }),
    ask: opCommand(aiAsk, {
      positionals: ["question"],
      rest: true,
      json: ["scope", "history"],
      flags: {
        args: {
          ...SCOPE_ARGS,
          "top-k": { type: "string", description: "Notes retrieved (default 8).", valueHint: "n" },
          mode: { type: "string", description: "Retrieval mode [lexical|semantic|hybrid]." },
        },
        // top_k and mode are fields of ai_ask's input itself; the validator checks both.
        toInput: (flags, rawArgs) => ({
          scope: scopeFromFlags(flags, rawArgs),
          ...(flags["top-k"] !== undefined ? { top_k: Number(flags["top-k"]) } : {}),
          ...(typeof flags.mode === "string" ? { mode: flags.mode as "lexical" | "semantic" | "hybrid" } : {}),
        }),
      },
      human: askHuman,
      examples: [
        `indx ai ask "what does the etag scheme guarantee?"`,
        `indx ai ask "who owns the launch?" --scope-glob 'Projects/**' --top-k 5`,
        `indx ai ask "summarize the risks" --stream   # NDJSON events, ending with ai.complete`,
      ],
    }),
    summarize: opCommand(aiSummarize, {
      json: ["scope"],
      flags: scopeFlags,
      human: summaryHuman,
      examples: [
        `indx ai summarize --scope-paths Spec.md,API.md --style bullets --length short`,
        `indx ai summarize --scope-tag project/alpha --include tldr,key_points,open_questions`,
      ],
    }),
    toc: opCommand(aiToc, {
      json: ["scope"],
      flags: {
        args: {
          ...SCOPE_ARGS,
          moc: { type: "boolean", description: "A map of content over a scope (default with a --scope-* flag)." },
          descriptions: { type: "boolean", description: "note mode: one grounded line per section (calls the model)." },
          write: { type: "string", description: "Also save the result as this note (needs --yes or --if-match to replace one).", valueHint: "path" },
          yes: { type: "boolean", alias: "y", description: "Replace an existing note with --write." },
          "if-match": { type: "string", description: "With --write: replace only this version of the note (its etag).", valueHint: "etag" },
          "if-not-exists": {
            type: "boolean",
            description: "With --write: only create the note; fail with already_exists if it exists (the default without --yes).",
          },
        },
        toInput: (flags, rawArgs) => {
          const scope = scopeFromFlags({ ...flags, note: flags.moc === true ? flags.note : undefined }, rawArgs);
          const moc = flags.moc === true || (scope !== undefined && typeof flags.note !== "string");
          const target = typeof flags.write === "string" ? flags.write : undefined;
          const ifMatch = typeof flags["if-match"] === "string" ? flags["if-match"] : undefined;
          if ((ifMatch !== undefined || flags["if-not-exists"] === true) && !target)
            throw new IndxError("validation_failed", "--if-match and --if-not-exists go with --write.", {
              option: ifMatch !== undefined ? "--if-match" : "--if-not-exists",
            });
          // Without --yes or --if-match, --write only creates: replacing a note is asked for, never assumed.
          const guard = ifMatch !== undefined ? { if_match: ifMatch } : flags.yes === true && flags["if-not-exists"] !== true ? {} : { if_not_exists: true };
          return {
            mode: moc ? ("moc" as const) : ("note" as const),
            ...(moc ? { scope } : typeof flags.note === "string" ? { path: flags.note } : {}),
            ...(flags.descriptions === true ? { include_descriptions: true } : {}),
            ...(target ? { write: { path: target, ...guard } } : {}),
          };
        },
      },
      human: (o, s) =>
        [o.toc_markdown, ...(o.written ? ["", s.dim(`wrote ${o.written.path} (etag ${o.written.etag})`)] : []), ...warningLines(o.warnings, s)].join("\n"),
      examples: [
        `indx ai toc --note Architecture.md --depth 3          # no model, no cost`,
        `indx ai toc --moc --scope-glob 'Projects/**' --group-by tag --write Index/Projects.md`,
      ],
    }),
    extract: opCommand(aiExtract, {
      json: ["scope", "schema"],
      flags: {
        args: {
          ...SCOPE_ARGS,
          "schema-file": { type: "string", description: "Read the JSON Schema from this file (- reads stdin).", valueHint: "file" },
          ...APPLY_ARGS,
        },
        toInput: (flags, rawArgs) => {
          const schema = schemaFromFlags(flags);
          return { scope: scopeFromFlags(flags, rawArgs), ...(schema ? { schema } : {}), ...applyFromFlags(flags, rawArgs) };
        },
      },
      human: extractHuman,
      examples: [
        `indx ai extract --scope-glob 'Meetings/2026-Q2/**' --schema-file action-items.schema.json`,
        `indx ai extract --scope-glob 'Meetings/2026-Q2/**' --schema-file action-items.schema.json --destination frontmatter --destination-key action_items --apply --apply-mode merge`,
        `cat schema.json | indx ai extract --scope-tag meeting --schema-file - --destination frontmatter --destination-key decisions --dry-run`,
      ],
    }),
    tag: opCommand(aiTag, {
      json: ["scope", "vocabulary"],
      flags: {
        args: { ...SCOPE_ARGS, ...TAG_ARGS, ...APPLY_ARGS },
        toInput: (flags, rawArgs) => {
          const vocabulary = vocabularyFromFlags(flags, rawArgs);
          return { scope: scopeFromFlags(flags, rawArgs), ...(vocabulary ? { vocabulary } : {}), ...applyFromFlags(flags, rawArgs) };
        },
      },
      human: tagHuman,
      examples: [
        `indx ai tag --scope-glob 'Inbox/**/*.md' --max-per-note 4 --min-confidence 0.7`,
        `indx ai tag --scope-glob 'Inbox/**/*.md' --dry-run          # the edits --apply would make, as a diff`,
        `indx ai tag --scope-paths Inbox/a.md --apply --if-match Inbox/a.md=ab12cd34ef567890`,
      ],
    }),
    metadata: opCommand(aiMetadata, {
      json: ["scope", "fields"],
      flags: {
        args: {
          ...SCOPE_ARGS,
          ...APPLY_ARGS,
          field: {
            type: "string",
            description: "A field to fill, key:type (repeatable): status:enum=idea|active, due:date, title:string! (required).",
            valueHint: "key:type",
          },
          "fields-file": { type: "string", description: "The field specs as a JSON list, from this file.", valueHint: "file" },
        },
        toInput: (flags, rawArgs) => {
          const fields = fieldsFromFlags(flags, rawArgs);
          return { scope: scopeFromFlags(flags, rawArgs), ...(fields ? { fields } : {}), ...applyFromFlags(flags, rawArgs) };
        },
      },
      human: metadataHuman,
      examples: [
        `indx ai metadata --scope-paths Projects/App.md --field 'title:string!' --field 'status:enum=idea|active|done' --field due:date`,
        `indx ai metadata --scope-glob 'Projects/**' --fields-file fields.json --dry-run`,
      ],
    }),
    relate: opCommand(aiRelate, {
      json: ["source", "candidates"],
      flags: {
        args: {
          path: { type: "string", description: "A source note (repeatable or comma-separated).", valueHint: "path" },
          ...SCOPE_ARGS,
          "candidates-glob": { type: "string", description: "Only notes whose path matches this glob may be related.", valueHint: "glob" },
          mode: { type: "string", description: "How neighbours are found [lexical|semantic|hybrid] (default hybrid)." },
        },
        toInput: relateInput,
      },
      human: relateTable,
      table: relateRows,
      examples: [
        `indx ai relate --path Architecture.md --top-k 8 --threshold 0.55 --propose-links`,
        `indx ai relate --scope-glob 'Projects/**' --candidates-glob 'Reference/**' --relations extends,depends_on`,
        `indx ai relate --note Spec.md --no-classify --mode semantic   # neighbours only, no chat model`,
      ],
    }),
  },
};
