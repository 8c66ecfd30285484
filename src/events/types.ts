import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";

export const EVENT_KINDS = [
  "note.created",
  "note.updated",
  "note.deleted",
  "note.moved",
  "tag.renamed",
  "index.updated",
  "ai.invocation",
  "auth.granted",
  "auth.refreshed",
  "auth.revoked",
  "auth.failed",
] as const;

/** The audit kinds: written to events.log, never streamed to token holders (docs/decisions.md, OAuth audit events). */
export const isAuditKind = (kind: string): boolean => kind.startsWith("auth.");

export type EventKind = (typeof EVENT_KINDS)[number];

/** Events carry paths, counts and durations, never content (docs/contracts.md, Events). */
export const VaultEventSchema = Type.Object({
  id: Type.String({ description: "<unix ms>-<process tag>-<sequence>: increasing within one process." }),
  time: Type.String(),
  kind: Type.Union(EVENT_KINDS.map((k) => Type.Literal(k))),
  source: Type.Union([Type.Literal("indx"), Type.Literal("external")], {
    description: "indx: a write through indx; external: a change seen on disk (an editor, sync, git).",
  }),
  path: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  op: Type.Optional(Type.String()),
  etag: Type.Optional(Type.String()),
  count: Type.Optional(Type.Integer()),
  duration_ms: Type.Optional(Type.Integer()),
  surface: Type.Optional(
    Type.Union([Type.Literal("cli"), Type.Literal("rest"), Type.Literal("mcp")], { description: "A write through indx: where it came from." }),
  ),
  token_id: Type.Optional(Type.String({ description: "A write through indx over REST or MCP over HTTP: the id of the token that made it (never the token)." })),
  ai: Type.Optional(
    Type.Object(
      {
        provider: Type.String(),
        model: Type.String(),
        usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer(), cost_usd: Type.Number() }),
        cache_hit: Type.Boolean(),
        ok: Type.Boolean(),
        error_code: Type.Optional(Type.String()),
        surface: Type.Optional(Type.Union([Type.Literal("cli"), Type.Literal("rest"), Type.Literal("mcp")], { description: "Where the call came from." })),
        token_id: Type.Optional(Type.String({ description: "REST and MCP over HTTP: the id of the token that made the call (never the token)." })),
        scope_paths: Type.Array(Type.String(), { description: "The notes the call read (the first 50)." }),
        applied_paths: Type.Optional(Type.Array(Type.String(), { description: "The notes it wrote (the first 50)." })),
      },
      { description: "ai.invocation only: what one AI call did and cost; never its prompt or output." },
    ),
  ),
  auth: Type.Optional(
    Type.Object(
      {
        client_id: Type.Optional(Type.String()),
        client_name: Type.Optional(Type.String()),
        grant_id: Type.Optional(Type.String({ description: "The OAuth grant (token family) id, as `indx token list` shows it; never a token." })),
        scopes: Type.Optional(Type.Array(Type.String())),
        folders: Type.Optional(
          Type.Object(
            { read: Type.Optional(Type.Array(Type.String())), write: Type.Optional(Type.Array(Type.String())) },
            { description: "auth.granted only: the folders the owner limited the grant to (docs/permissions.md); absent, the whole vault." },
          ),
        ),
        endpoint: Type.Optional(Type.String()),
        reason: Type.Optional(Type.String({ description: "auth.failed and auth.revoked: why." })),
        vault: Type.Optional(Type.String({ description: "The named vault ([vaults.<name>]) the grant is for; absent, the server's default vault." })),
      },
      { description: "auth.* only: an OAuth grant, refresh, revocation or failed attempt (docs/contracts.md, Events)." },
    ),
  ),
});

export type VaultEvent = Static<typeof VaultEventSchema>;
export type NewEvent = Omit<VaultEvent, "id" | "time">;

/**
 * The kinds a caller asked for (`note`, `note.moved,tag.renamed`: a prefix selects its family),
 * or null for all. An unknown kind is a typed error rather than a silent empty stream.
 */
export function parseKinds(values: readonly string[]): Set<EventKind> | null {
  const asked = values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  if (asked.length === 0) return null;
  const kinds = new Set<EventKind>();
  for (const a of asked) {
    const matched = EVENT_KINDS.filter((k) => k === a || k.startsWith(`${a}.`));
    if (matched.length === 0) throw new IndxError("validation_failed", `Unknown event kind ${a}; known kinds: ${EVENT_KINDS.join(", ")}.`, { field: "kinds" });
    for (const k of matched) kinds.add(k);
  }
  return kinds;
}
