import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import { writeFileAtomic } from "../core/write-file-atomic.ts";
import type { Scope } from "../ops/define.ts";
import { GrantSpecSchema } from "../ops/grant.ts";

const ScopeSchema = Type.Union([Type.Literal("vault:read"), Type.Literal("vault:write"), Type.Literal("vault:admin")]);

const ClientSchema = Type.Object({
  client_id: Type.String(),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  created_at: Type.String(),
});

/** One consent: the family of every access and refresh token issued from it. */
const GrantSchema = Type.Object({
  id: Type.String(),
  client_id: Type.String(),
  client_name: Type.String(),
  redirect_uri: Type.String(),
  scopes: Type.Array(ScopeSchema),
  /** The resource (RFC 8707) its tokens are good for: this server's URL when it was granted. */
  resource: Type.String(),
  /** The folders the owner limited it to on the consent page (docs/permissions.md); absent: the whole vault. */
  folders: Type.Optional(GrantSpecSchema),
  created_at: Type.String(),
  /** When the current refresh token stops working. */
  expires_at: Type.String(),
  last_refreshed_at: Type.Optional(Type.String()),
  revoked_at: Type.Optional(Type.String()),
  revoked_reason: Type.Optional(Type.String()),
  /** sha256 of the current refresh token, and of the ones it replaced (a replay of those revokes the grant). */
  refresh_hash: Type.String(),
  spent_refresh_hashes: Type.Array(Type.String()),
  /** sha256 of the authorization code that created it: a replayed code revokes the grant (OAuth 2.1 §4.1.3). */
  code_hash: Type.String(),
});

/** `scopes` when a refresh asked for fewer than the grant holds: this token carries only those. */
const AccessSchema = Type.Object({ hash: Type.String(), grant_id: Type.String(), expires_at: Type.String(), scopes: Type.Optional(Type.Array(ScopeSchema)) });
const ApprovalSchema = Type.Object({ hash: Type.String(), expires_at: Type.String() });

const FileSchema = Type.Object({
  clients: Type.Array(ClientSchema),
  grants: Type.Array(GrantSchema),
  access: Type.Array(AccessSchema),
  approvals: Type.Array(ApprovalSchema),
});

export type OAuthClientRecord = Static<typeof ClientSchema>;
export type Grant = Static<typeof GrantSchema> & { scopes: Scope[] };
type AccessRecord = Static<typeof AccessSchema>;
type OAuthFile = Static<typeof FileSchema>;

/** Registered clients kept at most; past it the oldest without a live grant are forgotten. */
const MAX_CLIENTS = 500;
/** Spent refresh hashes kept per grant: enough to recognise any replay of a recent token. */
const MAX_SPENT = 50;
/** A revoked or expired grant stays listed this long, then goes. */
const KEEP_DEAD_MS = 30 * 24 * 3600_000;

const empty = (): OAuthFile => ({ clients: [], grants: [], access: [], approvals: [] });
const isLive = (g: Grant, now: number) => !g.revoked_at && Date.parse(g.expires_at) > now;

/**
 * oauth.json in the data directory: clients, grants, access-token hashes and owner approval codes
 * (state beside tokens.json, never derived; mode 0600). Every change re-reads the file first, so
 * `indx auth approve` and `indx token revoke` in another process are never overwritten, and a
 * read notices their writes on the next request.
 */
export class OAuthStore {
  readonly file: string;
  private data: OAuthFile = empty();
  private access = new Map<string, AccessRecord>();
  private grants = new Map<string, Grant>();
  private loadedStamp = "\0";

  constructor(dataDir: string) {
    this.file = join(dataDir, "oauth.json");
  }

  private stamp(): string {
    try {
      const st = statSync(this.file);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      return "";
    }
  }

  private load(): void {
    this.loadedStamp = this.stamp();
    let data: unknown = empty();
    if (existsSync(this.file)) {
      try {
        data = JSON.parse(readFileSync(this.file, "utf8"));
      } catch {
        data = null;
      }
    }
    if (!Value.Check(FileSchema, data))
      throw new IndxError("internal", "oauth.json in the data directory is unreadable; fix or delete it (every OAuth client then connects again).");
    this.data = data as OAuthFile & { grants: Grant[] };
    this.access = new Map(this.data.access.map((a) => [a.hash, a]));
    this.grants = new Map((this.data.grants as Grant[]).map((g) => [g.id, g]));
  }

  /** The file as it is now (cheap when nobody wrote it since). */
  fresh(): this {
    if (this.stamp() !== this.loadedStamp) this.load();
    return this;
  }

  /** Re-reads, applies `change`, drops what has expired and writes atomically. */
  mutate<T>(change: (data: OAuthFile & { grants: Grant[] }) => T): T {
    this.load();
    const data = this.data as OAuthFile & { grants: Grant[] };
    const result = change(data);
    const now = Date.now();
    data.access = data.access.filter((a) => Date.parse(a.expires_at) > now && isLive(this.grantIn(data, a.grant_id), now));
    data.approvals = data.approvals.filter((a) => Date.parse(a.expires_at) > now);
    data.grants = data.grants.filter((g) => isLive(g, now) || now - Date.parse(g.revoked_at ?? g.expires_at) < KEEP_DEAD_MS);
    if (data.clients.length > MAX_CLIENTS) {
      const used = new Set(data.grants.filter((g) => isLive(g, now)).map((g) => g.client_id));
      const spare = data.clients.filter((c) => !used.has(c.client_id));
      const drop = new Set(spare.slice(0, data.clients.length - MAX_CLIENTS).map((c) => c.client_id));
      data.clients = data.clients.filter((c) => !drop.has(c.client_id));
    }
    this.write(data);
    return result;
  }

  private grantIn(data: OAuthFile & { grants: Grant[] }, id: string): Grant {
    return data.grants.find((g) => g.id === id) ?? { ...DEAD_GRANT, id };
  }

  private write(data: OAuthFile): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.file, `${JSON.stringify(data)}\n`, 0o600);
    this.load();
  }

  client(id: string): OAuthClientRecord | undefined {
    return this.fresh().data.clients.find((c) => c.client_id === id);
  }

  grant(id: string): Grant | undefined {
    return this.fresh().grants.get(id);
  }

  /** The grant an access token belongs to and the token's scopes, while both are live; else null. */
  accessGrant(hash: string, now = Date.now()): { grant: Grant; scopes: Scope[] } | null {
    const a = this.fresh().access.get(hash);
    if (!a || Date.parse(a.expires_at) <= now) return null;
    const g = this.grants.get(a.grant_id);
    if (!g || !isLive(g, now)) return null;
    return { grant: g, scopes: (a.scopes as Scope[] | undefined)?.filter((s) => g.scopes.includes(s)) ?? g.scopes };
  }

  grantsList(): Grant[] {
    return [...this.fresh().grants.values()];
  }

  /** Revokes a grant (every token of its family); false when there is none live of that id. */
  revoke(id: string, reason: string): boolean {
    return this.mutate((d) => {
      const g = d.grants.find((x) => x.id === id && !x.revoked_at);
      if (!g) return false;
      g.revoked_at = new Date().toISOString();
      g.revoked_reason = reason;
      return true;
    });
  }

  addApproval(hash: string, ttlMs: number): Date {
    const expires = new Date(Date.now() + ttlMs);
    this.mutate((d) => d.approvals.push({ hash, expires_at: expires.toISOString() }));
    return expires;
  }

  /** Spends a one-time approval code: true once, for a live code. */
  spendApproval(hash: string): boolean {
    if (!this.fresh().data.approvals.some((a) => a.hash === hash)) return false;
    return this.mutate((d) => {
      const i = d.approvals.findIndex((a) => a.hash === hash && Date.parse(a.expires_at) > Date.now());
      if (i < 0) return false;
      d.approvals.splice(i, 1);
      return true;
    });
  }
}

const DEAD_GRANT: Grant = {
  id: "",
  client_id: "",
  client_name: "",
  redirect_uri: "",
  scopes: [],
  resource: "",
  created_at: "",
  expires_at: new Date(0).toISOString(),
  refresh_hash: "",
  spent_refresh_hashes: [],
  code_hash: "",
  revoked_at: new Date(0).toISOString(),
};

export { MAX_SPENT };
