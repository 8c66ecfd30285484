import { statSync } from "node:fs";
import { basename } from "node:path";
import { Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { VERSION } from "../core/version.ts";
import { SCHEMA_VERSION } from "../index/schema.ts";
import { defineOp } from "../ops/define.ts";
import { Nullable, Warning } from "../ops/schemas.ts";
import { CONFIG_KEYS } from "../config/keys.ts";

const MAX_WARNINGS = 50;

const IndexCounts = Type.Object({
  files: Type.Integer(),
  notes: Type.Integer(),
  attachments: Type.Integer(),
  canvases: Type.Integer(),
  bases: Type.Integer(),
  chunks: Type.Integer(),
  links: Type.Integer(),
  unresolved_links: Type.Integer(),
  tags: Type.Integer(),
  tasks: Type.Integer(),
});

export const vaultStatus = defineOp({
  name: "vault_status",
  title: "Vault and index health",
  description:
    "Health and counts of the vault and its index: notes, attachments, links, unresolved links, tags, when the index was last updated, whether embeddings are configured, and notes that need attention (malformed frontmatter, too large, binary). Call it first when connecting to an unfamiliar vault.",
  scope: "vault:read",
  safe: true,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    name: Type.String(),
    vault_id: Type.String(),
    version: Type.String(),
    index: Type.Object({
      state: Type.Union([Type.Literal("ready"), Type.Literal("missing"), Type.Literal("incompatible")]),
      fix: Type.Optional(Type.String()),
      reason: Type.Optional(Type.String()),
      schema_version: Type.Integer(),
      created_at: Nullable(Type.String()),
      updated_at: Nullable(Type.String()),
      size_bytes: Type.Integer(),
      counts: Type.Optional(IndexCounts),
    }),
    embeddings: Type.Object({ configured: Type.Boolean(), provider: Nullable(Type.String()), model: Nullable(Type.String()) }),
    warnings: Type.Array(Warning),
    warnings_total: Type.Integer(),
  }),
  run(ctx) {
    const v = ctx.vault;
    const base = {
      name: basename(v.root),
      vault_id: v.id,
      version: VERSION,
      embeddings: {
        configured: v.config.str("embeddings.provider") !== null,
        provider: v.config.str("embeddings.provider"),
        model: v.config.str("embeddings.model"),
      },
    };
    let db;
    try {
      db = ctx.index.db;
    } catch (err) {
      if (!(err instanceof IndxError) || (err.code !== "index_missing" && err.code !== "index_incompatible")) throw err;
      return {
        ...base,
        index: {
          state: err.code === "index_missing" ? ("missing" as const) : ("incompatible" as const),
          fix: String(err.details?.fix ?? "indx vault index"),
          ...(err.code === "index_incompatible" ? { reason: String(err.details?.reason ?? "") } : {}),
          schema_version: SCHEMA_VERSION,
          created_at: null,
          updated_at: null,
          size_bytes: 0,
        },
        warnings: [],
        warnings_total: 0,
      };
    }
    const one = (sql: string) => (db.query<{ n: number }, []>(sql).get()?.n ?? 0) as number;
    const kinds = Object.fromEntries(
      db.query<{ kind: string; n: number }, []>("SELECT kind, count(*) AS n FROM files GROUP BY kind").all().map((r) => [r.kind, r.n]),
    );
    const problems = db
      .query<{ path: string; status: string; fm_error: string | null }, []>(
        "SELECT f.path, n.status, n.fm_error FROM notes n JOIN files f ON f.id = n.file_id WHERE n.status <> 'ok' OR n.fm_error IS NOT NULL ORDER BY f.path",
      )
      .all();
    const warnings = problems.map((p) =>
      p.status === "too_large"
        ? { code: "note_too_large", path: p.path, message: "larger than index.max_note_bytes; listed but not searchable" }
        : p.status === "binary"
          ? { code: "binary_content", path: p.path, message: "binary content in a Markdown file; not searchable" }
          : { code: "frontmatter_invalid", path: p.path, message: p.fm_error ?? "invalid frontmatter" },
    );
    let size = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        size += statSync(ctx.index.path + suffix).size;
      } catch {
        // the WAL may not exist
      }
    }
    return {
      ...base,
      index: {
        state: "ready" as const,
        schema_version: SCHEMA_VERSION,
        created_at: ctx.index.getMeta("created_at"),
        updated_at: ctx.index.getMeta("updated_at"),
        size_bytes: size,
        counts: {
          files: one("SELECT count(*) AS n FROM files"),
          notes: kinds.note ?? 0,
          attachments: kinds.attachment ?? 0,
          canvases: kinds.canvas ?? 0,
          bases: kinds.base ?? 0,
          chunks: one("SELECT count(*) AS n FROM chunks"),
          links: one("SELECT count(*) AS n FROM links"),
          unresolved_links: one("SELECT count(*) AS n FROM links WHERE dst_path IS NULL AND linkpath <> ''"),
          tags: one("SELECT count(DISTINCT tag_lower) AS n FROM tags"),
          tasks: one("SELECT count(*) AS n FROM tasks"),
        },
      },
      warnings: warnings.slice(0, MAX_WARNINGS),
      warnings_total: warnings.length,
    };
  },
  summary: (o) =>
    o.index.counts
      ? `${o.name}: ${o.index.counts.notes} notes, ${o.index.counts.links} links (${o.index.counts.unresolved_links} unresolved), ${o.index.counts.tags} tags`
      : `${o.name}: index ${o.index.state}; run ${o.index.fix}`,
});

export const IndexReportSchema = Type.Object({
  rebuilt: Nullable(Type.String({ description: "Why the index was created from scratch, or null for an incremental pass." })),
  scanned: Type.Integer(),
  added: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  deleted: Type.Integer(),
  links_reresolved: Type.Integer(),
  warnings: Type.Array(Warning),
  duration_ms: Type.Integer(),
});

export const vaultReindex = defineOp({
  name: "vault_reindex",
  title: "Update or rebuild the index",
  description:
    "Bring the index up to date with the files on disk (only changed files are re-read), or rebuild it from scratch with rebuild=true. Rarely needed: the server watches the vault and keeps the index current.",
  scope: "vault:admin",
  safe: false,
  input: Type.Object(
    { rebuild: Type.Optional(Type.Boolean({ default: false, description: "Drop the index and build it again." })) },
    { additionalProperties: false },
  ),
  output: IndexReportSchema,
  run(ctx, input) {
    const r = ctx.reindex({ rebuild: input.rebuild });
    return {
      rebuilt: r.rebuilt,
      scanned: r.scanned,
      added: r.added,
      updated: r.updated,
      unchanged: r.unchanged,
      deleted: r.deleted,
      links_reresolved: r.linksReresolved,
      warnings: r.warnings,
      duration_ms: r.durationMs,
    };
  },
  summary: (o) =>
    `indexed ${o.scanned} files in ${o.duration_ms} ms: ${o.added} added, ${o.updated} updated, ${o.deleted} deleted, ${o.warnings.length} warnings`,
});

/** Keys whose values are local paths: shown as set/unset outside the local `indx config` commands. */
const PATH_KEYS = new Set(["vault", "data_dir"]);

export const vaultConfigGet = defineOp({
  name: "vault_config_get",
  title: "Read the merged configuration",
  description: "Show the effective configuration (flags > environment > config file > defaults) and where each value came from. Secrets and local paths are shown only as set/unset.",
  scope: "vault:admin",
  safe: true,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    config: Type.Record(Type.String(), Type.Object({ value: Type.Unknown(), source: Type.String(), description: Type.String() })),
  }),
  run(ctx) {
    const redacted = ctx.vault.config.redacted();
    const config: Record<string, { value: unknown; source: string; description: string }> = {};
    for (const k of CONFIG_KEYS) {
      const entry = redacted[k.key]!;
      const value = PATH_KEYS.has(k.key) ? (entry.value == null ? "unset" : "set") : entry.value;
      config[k.key] = { value, source: entry.source, description: k.description };
    }
    return { config };
  },
  summary: (o) => `${Object.keys(o.config).length} configuration keys`,
});
