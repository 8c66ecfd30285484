import { statSync } from "node:fs";
import { basename } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { AiSummary, aiSummary } from "../ai/ops/status-ops.ts";
import { CONFIG_KEYS, PATH_KEYS } from "../config/keys.ts";
import { ERROR_CODES, type ErrorCode, INDEX_NEEDS_BUILD, IndxError, toIndxError } from "../core/errors.ts";
import { VERSION } from "../core/version.ts";
import type { EmbedReport } from "../embeddings/job.ts";
import { REEMBED_FIX, type VectorStore } from "../embeddings/store.ts";
import { SCHEMA_VERSION } from "../index/storage/schema.ts";
import type { IndexStore } from "../index/storage/store.ts";
import type { OpContext } from "../ops/context.ts";
import { defineOp } from "../ops/define.ts";
import { Nullable, Warning } from "../ops/schemas.ts";
import { describeIdentity, type EmbeddingsSettings } from "../providers/settings.ts";
import { configuredWeight } from "../search/fusion-weight.ts";

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
  documents: Type.Integer({ description: "PDFs and DOCX files whose text is searchable." }),
});

const EmbeddingsStatus = Type.Object({
  configured: Type.Boolean(),
  provider: Nullable(Type.String()),
  model: Nullable(Type.String()),
  state: Type.Union(
    (["not_configured", "misconfigured", "ready", "partial", "empty", "incompatible", "unavailable"] as const).map((s) => Type.Literal(s)),
    {
      description:
        "ready: every chunk embedded; partial: some pending; empty: none yet; incompatible: stored vectors of another model; unavailable: the provider does not answer.",
    },
  ),
  available: Type.Boolean({ description: "Semantic and hybrid search can run now." }),
  dimension: Nullable(Type.Integer({ description: "Dimension of the stored vectors, else the probed one." })),
  stored: Nullable(Type.Object({ provider: Type.String(), model: Type.String(), dim: Type.Integer() })),
  counts: Type.Optional(Type.Object({ chunks: Type.Integer(), embedded: Type.Integer(), pending: Type.Integer() })),
  probe: Type.Optional(
    Type.Object({
      ok: Type.Boolean(),
      dimension: Nullable(Type.Integer()),
      latency_ms: Type.Integer(),
      error: Nullable(Type.Object({ kind: Type.String(), message: Type.String() })),
    }),
  ),
  fusion: Type.Optional(
    Type.Object(
      {
        vector_weight: Type.Number({ description: "Weight of the vector list in auto search (lexical: 1); 0: auto is lexical." }),
        source: Type.Union([Type.Literal("configured"), Type.Literal("measured"), Type.Literal("unmeasured")]),
        queries: Type.Optional(Type.Integer({ description: "Link lines measured (the line should find the note it links to)." })),
        lexical_mrr: Type.Optional(Type.Number()),
        fused_mrr: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: "MRR of fusion at each vector weight tried." })),
        reason: Type.String(),
      },
      { description: "How auto search uses the vectors: measured on this vault for the stored model, or search.vector_weight." },
    ),
  ),
  message: Type.Optional(Type.String()),
  fix: Type.Optional(Type.String()),
});

/** How auto search uses the vectors: search.vector_weight, else the weight measured on the vault. */
function fusionStatus(ctx: OpContext): Static<typeof EmbeddingsStatus>["fusion"] {
  const configured = configuredWeight(ctx.vault.config.str("search.vector_weight"));
  if (configured !== null) return { vector_weight: configured, source: "configured", reason: "search.vector_weight is set" };
  const d = ctx.embeddings.fusion();
  if (!d) return { vector_weight: 0, source: "unmeasured", reason: "not measured yet (after the next embedding pass): auto is lexical" };
  return { vector_weight: d.weight, source: "measured", queries: d.queries, lexical_mrr: d.lexical, fused_mrr: d.fused, reason: d.reason };
}

/** The embeddings part of vault_status: configuration, stored identity, coverage, and a live probe. */
async function embeddingsStatus(ctx: OpContext, probe: boolean, indexReady: boolean): Promise<Static<typeof EmbeddingsStatus>> {
  const svc = ctx.embeddings;
  const cfg = ctx.vault.config;
  const base = { provider: cfg.str("embeddings.provider"), model: cfg.str("embeddings.model") };
  let settings: EmbeddingsSettings | null;
  try {
    settings = svc.settings();
  } catch (err) {
    return { configured: true, ...base, state: "misconfigured", available: false, dimension: null, stored: null, message: (err as Error).message };
  }
  if (settings === null) return { configured: false, ...base, state: "not_configured", available: false, dimension: null, stored: null };
  let store: VectorStore | null;
  try {
    store = svc.vectors(false);
  } catch (err) {
    const e = err as IndxError;
    return {
      configured: true,
      provider: settings.provider,
      model: settings.model,
      state: e.code === "index_incompatible" ? "incompatible" : "unavailable",
      available: false,
      dimension: null,
      stored: null,
      message: e.message,
      fix: String(e.details?.fix ?? REEMBED_FIX),
    };
  }
  const stored = store?.identity() ?? null;
  const mismatch = store?.mismatch(settings) ?? null;
  const counts = indexReady ? svc.counts(ctx.index, mismatch ? null : store) : undefined;
  const p = probe ? await svc.probe(settings) : undefined;
  const dimMismatch =
    store && p?.ok && typeof p.dimension === "number" && stored && !mismatch && p.dimension !== stored.dim ? store.mismatch(settings, p.dimension) : null;
  const problem = mismatch ?? dimMismatch;
  const out = {
    configured: true,
    provider: settings.provider,
    model: settings.model,
    dimension: stored?.dim ?? p?.dimension ?? null,
    stored,
    ...(counts ? { counts } : {}),
    ...(p ? { probe: p } : {}),
    ...(stored && !mismatch ? { fusion: fusionStatus(ctx) } : {}),
  };
  if (problem) return { ...out, state: "incompatible", available: false, message: `${problem}.`, fix: REEMBED_FIX };
  if (p && !p.ok)
    return {
      ...out,
      state: "unavailable",
      available: false,
      message: `The embeddings provider ${describeIdentity(settings)} does not answer (${p.error?.kind}): search falls back to lexical.`,
      fix: settings.provider === "ollama" ? `start Ollama and run \`ollama pull ${settings.model}\`` : "check INDX_OPENAI_BASE_URL and INDX_OPENAI_API_KEY",
    };
  if (!stored || (counts && counts.embedded === 0))
    return { ...out, state: "empty", available: false, message: "No chunk is embedded yet.", fix: "indx vault index" };
  if (counts && counts.pending > 0) return { ...out, state: "partial", available: true, fix: "indx vault index" };
  return { ...out, state: "ready", available: true };
}

export const vaultStatus = defineOp({
  name: "vault_status",
  errors: [],
  needsIndex: false,
  title: "Vault and index health",
  description: "Vault and index counts and health. Call first on an unfamiliar vault.",
  scope: "vault:read",
  safe: true,
  input: Type.Object(
    {
      probe: Type.Optional(Type.Boolean({ default: true, description: "Test the embeddings provider with one vector." })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    name: Type.String(),
    vault_id: Type.String(),
    version: Type.String(),
    index: Type.Object({
      state: Type.Union([Type.Literal("ready"), Type.Literal("missing"), Type.Literal("incompatible"), Type.Literal("corrupt")]),
      fix: Type.Optional(Type.String()),
      reason: Type.Optional(Type.String()),
      schema_version: Type.Integer(),
      created_at: Nullable(Type.String()),
      updated_at: Nullable(Type.String()),
      size_bytes: Type.Integer(),
      counts: Type.Optional(IndexCounts),
    }),
    embeddings: EmbeddingsStatus,
    ai: AiSummary,
    warnings: Type.Array(Warning),
    warnings_total: Type.Integer(),
  }),
  async run(ctx, input) {
    const v = ctx.vault;
    const base = {
      name: basename(v.root),
      vault_id: v.id,
      version: VERSION,
    };
    let index: IndexStore;
    let counts: ReturnType<IndexStore["stats"]["counts"]>;
    let problems: ReturnType<IndexStore["notes"]["problems"]>;
    try {
      index = ctx.index;
      counts = index.stats.counts();
      problems = index.notes.problems();
    } catch (raw) {
      const err = toIndxError(raw);
      // A data folder that cannot be one holds no index either: "missing", with its reason and fix.
      if (!INDEX_NEEDS_BUILD.has(err.code) && err.code !== "data_dir_unusable") throw err;
      const state = err.code === "index_corrupt" ? ("corrupt" as const) : err.code === "index_incompatible" ? ("incompatible" as const) : ("missing" as const);
      return {
        ...base,
        embeddings: await embeddingsStatus(ctx, input.probe !== false, false),
        ai: aiSummary(ctx),
        index: {
          state,
          fix: String(err.details?.fix ?? "indx vault index"),
          ...(err.code !== "index_missing" ? { reason: String(err.details?.reason ?? "") } : {}),
          schema_version: SCHEMA_VERSION,
          created_at: null,
          updated_at: null,
          size_bytes: 0,
        },
        warnings: [],
        warnings_total: 0,
      };
    }
    const warnings = problems.map(
      (p): Warning =>
        p.status === "too_large"
          ? { code: "note_too_large", path: p.path, message: "larger than index.max_note_bytes; listed but not searchable" }
          : p.status === "binary"
            ? { code: "binary_content", path: p.path, message: "binary content in a Markdown file; not searchable" }
            : { code: "frontmatter_invalid", path: p.path, message: p.frontmatterError ?? "invalid frontmatter" },
    );
    // A document whose text is missing or partial says why for as long as it is (docs/documents.md).
    for (const d of index.documents.problems())
      warnings.push({ code: d.problem === "truncated" ? "document_truncated" : "document_not_extracted", path: d.path, message: d.message });
    let size = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        size += statSync(index.path + suffix).size;
      } catch {
        // the WAL may not exist
      }
    }
    return {
      ...base,
      embeddings: await embeddingsStatus(ctx, input.probe !== false, true),
      ai: aiSummary(ctx),
      index: {
        state: "ready" as const,
        schema_version: SCHEMA_VERSION,
        created_at: index.getMeta("created_at"),
        updated_at: index.getMeta("updated_at"),
        size_bytes: size,
        counts: {
          files: counts.files,
          notes: counts.notes,
          attachments: counts.attachments,
          canvases: counts.canvases,
          bases: counts.bases,
          chunks: counts.chunks,
          links: counts.links,
          unresolved_links: counts.unresolvedLinks,
          tags: counts.tags,
          tasks: counts.tasks,
          documents: counts.documents,
        },
      },
      warnings: warnings.slice(0, MAX_WARNINGS),
      warnings_total: warnings.length,
    };
  },
  summary: (o) =>
    (o.index.counts
      ? `${o.name}: ${o.index.counts.notes} notes, ${o.index.counts.links} links (${o.index.counts.unresolved_links} unresolved), ${o.index.counts.tags} tags`
      : `${o.name}: index ${o.index.state}; run ${o.index.fix}`) +
    (o.embeddings.configured
      ? `; embeddings ${o.embeddings.state} (${o.embeddings.provider}/${o.embeddings.model}${o.embeddings.dimension ? `, ${o.embeddings.dimension}d` : ""}${o.embeddings.counts ? `, ${o.embeddings.counts.embedded}/${o.embeddings.counts.chunks} chunks` : ""})`
      : ""),
});

const IndexReportSchema = Type.Object({
  rebuilt: Nullable(Type.String({ description: "Why the index was created from scratch, or null for an incremental pass." })),
  scanned: Type.Integer(),
  added: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  deleted: Type.Integer(),
  links_reresolved: Type.Integer(),
  warnings: Type.Array(Warning),
  duration_ms: Type.Integer(),
  embeddings: Nullable(
    Type.Object(
      {
        provider: Type.String(),
        model: Type.String(),
        dimension: Nullable(Type.Integer()),
        chunks: Type.Integer({ description: "Distinct chunk contents in the index." }),
        reused: Type.Integer({ description: "Already embedded (unchanged or renamed): not sent again." }),
        embedded: Type.Integer(),
        pending: Type.Integer({ description: "Still without a vector (a failure or interruption; the next run resumes)." }),
        requests: Type.Integer(),
        retries: Type.Integer(),
        pruned: Type.Integer(),
        batch_size: Type.Integer(),
        duration_ms: Type.Integer(),
        error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
      },
      { description: "The embedding pass after indexing; null when no embeddings provider is configured or embeddings=false." },
    ),
  ),
});

export const vaultReindex = defineOp({
  name: "vault_reindex",
  errors: ["not_found", "patch_target_not_found", "encoding_unsupported", "ai_unavailable", "ai_provider_error", "index_incompatible", "cancelled"],
  needsIndex: false,
  title: "Update or rebuild the index",
  description: "Update the index from disk (rarely needed).",
  scope: "vault:admin",
  safe: false,
  input: Type.Object(
    {
      rebuild: Type.Optional(Type.Boolean({ default: false, description: "Rebuild from scratch." })),
      embeddings: Type.Optional(Type.Boolean({ default: true, description: "Embed new and changed chunks." })),
      reembed: Type.Optional(Type.Boolean({ default: false, description: "Embed everything again." })),
      require_embeddings: Type.Optional(Type.Boolean({ default: false, description: "Fail if embeddings cannot be made." })),
    },
    { additionalProperties: false },
  ),
  output: IndexReportSchema,
  async run(ctx, input) {
    if (input.embeddings === false && (input.reembed || input.require_embeddings))
      throw new IndxError("validation_failed", "reembed and require_embeddings need embeddings enabled.");
    // A multi-file write a crashed process left half done is finished before the vault is read.
    await ctx.writer.recover();
    const r = await ctx.updateIndex({ build: true, rebuild: input.rebuild }, { onProgress: ctx.progress, signal: ctx.signal });
    const warnings: Warning[] = [...r.warnings];
    // An empty folder is most often the wrong folder: say so instead of succeeding silently.
    if (r.scanned === 0) warnings.push({ code: "vault_empty", message: "The vault folder has no notes or other files to index: is it the right folder?" });
    const embeddings = input.embeddings === false ? null : await embedAfterIndex(ctx, input, warnings);
    return {
      rebuilt: r.rebuilt,
      scanned: r.scanned,
      added: r.added,
      updated: r.updated,
      unchanged: r.unchanged,
      deleted: r.deleted,
      links_reresolved: r.linksReresolved,
      warnings,
      duration_ms: r.durationMs,
      embeddings,
    };
  },
  summary: (o) =>
    `indexed ${o.scanned} files in ${o.duration_ms} ms: ${o.added} added, ${o.updated} updated, ${o.deleted} deleted, ${o.warnings.length} warnings` +
    (o.embeddings ? `; embeddings: ${o.embeddings.embedded} embedded, ${o.embeddings.reused} reused, ${o.embeddings.pending} pending` : ""),
});

/**
 * The embedding pass of `indx vault index` / vault_reindex. A failure never harms the lexical
 * index, which is already written: it becomes a warning, or an error with require_embeddings.
 */
async function embedAfterIndex(ctx: OpContext, input: { reembed?: boolean; require_embeddings?: boolean }, warnings: Warning[]) {
  const svc = ctx.embeddings;
  const settings = svc.settings();
  if (settings === null) {
    if (input.require_embeddings || input.reembed)
      throw new IndxError("ai_unavailable", "No embeddings provider is configured: set INDX_EMBEDDINGS_PROVIDER and INDX_EMBEDDINGS_MODEL.", {
        fix: "set INDX_EMBEDDINGS_PROVIDER",
      });
    return null;
  }
  let report: EmbedReport | null;
  try {
    report = await svc.run(ctx.index, { reembed: input.reembed === true, prune: true, signal: ctx.signal, onProgress: svc.progress ?? ctx.progress });
  } catch (err) {
    if (!(err instanceof IndxError) || input.require_embeddings) throw err;
    warnings.push({ code: err.code === "index_incompatible" ? "embeddings_incompatible" : "embeddings_failed", message: err.message });
    return null;
  }
  if (report?.error) {
    if (input.require_embeddings) {
      const code = (report.error.code in ERROR_CODES ? report.error.code : "ai_provider_error") as ErrorCode;
      throw new IndxError(code, `${report.error.message} The lexical index is up to date; ${report.pending} chunks still need embeddings.`, {
        pending: report.pending,
        embedded: report.embedded,
        fix: "indx vault index --require-embeddings",
      });
    }
    warnings.push({
      code: "embeddings_failed",
      message: `${report.error.message} The lexical index is up to date; ${report.pending} chunks still need embeddings (run \`indx vault index\` again to resume).`,
    });
  }
  return report ?? null;
}

export const vaultConfigGet = defineOp({
  name: "vault_config_get",
  errors: [],
  needsIndex: false,
  title: "Read the merged configuration",
  description: "The configuration and each value's source.",
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
      const entry = redacted[k.key];
      if (!entry) continue;
      const value = PATH_KEYS.has(k.key) ? (entry.value == null ? "unset" : "set") : entry.value;
      config[k.key] = { value, source: entry.source, description: k.description };
    }
    return { config };
  },
  summary: (o) => `${Object.keys(o.config).length} configuration keys`,
});
