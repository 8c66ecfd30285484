import type { Scope } from "../ops/define.ts";
import type { GrantSpec } from "../ops/grant.ts";
import { OAuthError } from "./errors.ts";
import { canonicalResource, vaultOfResource, vaultResourcePath } from "./metadata.ts";
import { ACCESS_PREFIX, CODE_PREFIX, hashSecret, newId, newSecret, pkceMatches, REFRESH_PREFIX, VERIFIER_SYNTAX } from "./secrets.ts";
import { type Grant, MAX_SPENT, type OAuthClientRecord, type OAuthStore } from "./store.ts";

/** An authorization code lives this long (OAuth 2.1 §4.1.2: short), and is spent once. */
const CODE_TTL_MS = 60_000;
const MAX_CODES = 1000;

interface IssuedCode {
  grantId: string;
  client: OAuthClientRecord;
  redirectUri: string;
  challenge: string;
  scopes: Scope[];
  /** The folders the owner chose on the consent page; absent: the whole vault. */
  folders?: GrantSpec;
  resource: string;
  /** The named vault the resource is (its grant lives in that vault's oauth.json); null: the default vault. */
  vault: string | null;
  expires: number;
  spent: boolean;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** What an access token stands for: its grant's id, its scopes and the grant's folders (null: the whole vault). */
export interface AccessHolder {
  id: string;
  scopes: Scope[];
  grant: GrantSpec | null;
}

export interface Lifetimes {
  accessSeconds: number;
  refreshDays: number;
}

/** What the audit log is told: who, which grant, why; never a token or code. */
export type Audit = (kind: "auth.granted" | "auth.refreshed" | "auth.revoked" | "auth.failed", fields: AuditFields) => void;
export interface AuditFields {
  client_id?: string;
  client_name?: string;
  grant_id?: string;
  scopes?: string[];
  /** auth.granted: the folders the owner chose (globs, never note text). */
  folders?: GrantSpec;
  endpoint?: string;
  reason?: string;
  /** The named vault the grant is for (docs/decisions.md, "OAuth for named vaults"); absent: the default vault. */
  vault?: string;
}

/**
 * Where grants live: the default vault's oauth.json, or a named vault's own (so `indx token list
 * --vault work` lists them and `revoke` ends them there). `all` is every store a refresh or a
 * revocation may name a token of.
 */
export interface GrantStores {
  of(vault: string | null): OAuthStore;
  all(): OAuthStore[];
}

/**
 * Codes, grants and their token families: PKCE-bound one-time codes (kept in memory: they live a
 * minute in the one process that serves), rotating refresh tokens whose replay revokes the whole
 * family, and short-lived access tokens bound to this server's resource (docs/decisions.md, OAuth).
 */
export class GrantService {
  private readonly codes = new Map<string, IssuedCode>();

  private readonly stores: GrantStores;

  constructor(
    store: OAuthStore,
    private readonly lifetimes: () => Lifetimes,
    private readonly audit: Audit,
    stores?: GrantStores,
  ) {
    this.stores = stores ?? { of: () => store, all: () => [store] };
  }

  issueCode(c: Omit<IssuedCode, "grantId" | "expires" | "spent">): { code: string; grantId: string } {
    const now = Date.now();
    for (const [k, v] of this.codes) if (v.expires <= now) this.codes.delete(k);
    if (this.codes.size >= MAX_CODES) throw new OAuthError("slow_down", "Too many authorizations in progress; try again in a minute.", 429, 60);
    const code = newSecret(CODE_PREFIX);
    const grantId = newId("oauth_");
    this.codes.set(hashSecret(code), { ...c, grantId, expires: now + CODE_TTL_MS, spent: false });
    return { code, grantId };
  }

  /** grant_type=authorization_code (OAuth 2.1 §4.1.3 with PKCE and RFC 8707). */
  exchangeCode(p: { code: string; clientId: string; redirectUri: string; verifier: string; resource: string | null; base: string }): TokenResponse {
    const hash = hashSecret(p.code);
    const issued = this.codes.get(hash);
    if (!issued || issued.expires <= Date.now())
      throw this.fail("invalid_grant", "The authorization code is unknown or expired.", { client_id: p.clientId, reason: "code_unknown" });
    const store = this.stores.of(issued.vault);
    const vault = issued.vault === null ? {} : { vault: issued.vault };
    if (issued.spent) {
      // A second use means the code leaked: whatever the first use got is revoked too.
      if (store.revoke(issued.grantId, "code_replayed"))
        this.audit("auth.revoked", { client_id: issued.client.client_id, grant_id: issued.grantId, reason: "code_replayed", ...vault });
      throw this.fail("invalid_grant", "The authorization code was already used; its tokens are revoked.", {
        client_id: p.clientId,
        grant_id: issued.grantId,
        reason: "code_replayed",
        ...vault,
      });
    }
    const ctx = { client_id: p.clientId, grant_id: issued.grantId, ...vault };
    if (issued.client.client_id !== p.clientId)
      throw this.fail("invalid_grant", "The code was issued to another client.", { ...ctx, reason: "client_mismatch" });
    if (issued.redirectUri !== p.redirectUri)
      throw this.fail("invalid_grant", "redirect_uri differs from the authorization request's.", { ...ctx, reason: "redirect_mismatch" });
    if (!VERIFIER_SYNTAX.test(p.verifier) || !pkceMatches(p.verifier, issued.challenge))
      throw this.fail("invalid_grant", "The code_verifier does not match the code_challenge.", { ...ctx, reason: "pkce_mismatch" });
    if (p.resource !== null && canonicalResource(p.resource, p.base, (name) => name === issued.vault) !== issued.resource)
      throw this.fail("invalid_target", "The resource differs from the one authorized.", { ...ctx, reason: "resource_mismatch" });
    if (issued.resource !== resourceOf(p.base, issued.vault))
      throw this.fail("invalid_target", "The code was issued for another resource.", { ...ctx, reason: "resource_mismatch" });
    issued.spent = true;
    const refresh = newSecret(REFRESH_PREFIX);
    const now = new Date();
    const grant: Grant = {
      id: issued.grantId,
      client_id: issued.client.client_id,
      client_name: issued.client.client_name,
      redirect_uri: issued.redirectUri,
      scopes: issued.scopes,
      resource: issued.resource,
      ...(issued.folders ? { folders: issued.folders } : {}),
      created_at: now.toISOString(),
      expires_at: this.refreshExpiry(now),
      refresh_hash: hashSecret(refresh),
      spent_refresh_hashes: [],
      code_hash: hash,
    };
    const access = newSecret(ACCESS_PREFIX);
    store.mutate((d) => {
      d.grants.push(grant);
      d.access.push(this.accessRecord(access, grant.id));
    });
    return this.response(access, refresh, grant.scopes);
  }

  /** grant_type=refresh_token: rotates the refresh token; a spent one revokes the family (OAuth 2.1 §4.3.1). */
  refresh(p: { refreshToken: string; clientId: string; scope: Scope[] | null; resource: string | null; base: string }): TokenResponse {
    const hash = hashSecret(p.refreshToken);
    // A refresh names no vault: its grant is in whichever vault's store holds the token.
    const found = this.find((g) => g.refresh_hash === hash);
    if (!found) {
      const reused = this.find((g) => g.spent_refresh_hashes.includes(hash));
      if (reused) {
        const { store, grant } = reused;
        const vault = vaultField(grant, p.base);
        if (store.revoke(grant.id, "refresh_token_reused"))
          this.audit("auth.revoked", {
            client_id: grant.client_id,
            client_name: grant.client_name,
            grant_id: grant.id,
            reason: "refresh_token_reused",
            ...vault,
          });
        throw this.fail("invalid_grant", "This refresh token was already used; every token of its grant is revoked.", {
          client_id: p.clientId,
          grant_id: grant.id,
          reason: "refresh_token_reused",
          ...vault,
        });
      }
      throw this.fail("invalid_grant", "The refresh token is unknown.", { client_id: p.clientId, reason: "refresh_unknown" });
    }
    const { store, grant: current } = found;
    const vault = vaultField(current, p.base);
    const ctx = { client_id: p.clientId, grant_id: current.id, ...vault };
    if (current.revoked_at) throw this.fail("invalid_grant", "The grant was revoked.", { ...ctx, reason: "revoked" });
    if (Date.parse(current.expires_at) <= Date.now())
      throw this.fail("invalid_grant", "The refresh token expired; authorize again.", { ...ctx, reason: "expired" });
    if (current.client_id !== p.clientId)
      throw this.fail("invalid_grant", "The refresh token belongs to another client.", { ...ctx, reason: "client_mismatch" });
    const ownVault = vaultOfResource(current.resource, p.base);
    if (
      current.resource !== resourceOf(p.base, ownVault) ||
      (p.resource !== null && canonicalResource(p.resource, p.base, (name) => name === ownVault) !== current.resource)
    )
      throw this.fail("invalid_target", "The grant is for another resource.", { ...ctx, reason: "resource_mismatch" });
    if (p.scope && !p.scope.every((s) => current.scopes.includes(s)))
      throw this.fail("invalid_scope", "A refresh may narrow the scopes, never widen them.", { ...ctx, reason: "scope_widened" });
    const scopes = p.scope ?? current.scopes;
    const refresh = newSecret(REFRESH_PREFIX);
    const access = newSecret(ACCESS_PREFIX);
    const rotated = store.mutate((d) => {
      const g = d.grants.find((x) => x.id === current.id);
      // Another request rotated it between our read and this write: that one won.
      if (!g || g.refresh_hash !== hash || g.revoked_at) return false;
      g.spent_refresh_hashes = [...g.spent_refresh_hashes, hash].slice(-MAX_SPENT);
      g.refresh_hash = hashSecret(refresh);
      g.last_refreshed_at = new Date().toISOString();
      g.expires_at = this.refreshExpiry(new Date());
      // The refresh token keeps the grant's scopes; a narrowed refresh narrows only this access token.
      d.access.push({ ...this.accessRecord(access, g.id), ...(p.scope ? { scopes } : {}) });
      return true;
    });
    if (!rotated) throw this.fail("invalid_grant", "The refresh token was just used.", { ...ctx, reason: "refresh_race" });
    this.audit("auth.refreshed", { client_id: current.client_id, client_name: current.client_name, grant_id: current.id, scopes, ...vault });
    return this.response(access, refresh, scopes);
  }

  /** RFC 7009: a refresh token revokes its grant; an access token, its grant too (a public client holds both). */
  revokeToken(token: string, clientId: string | null): void {
    const hash = hashSecret(token);
    for (const store of this.stores.all()) {
      const grant = store.accessGrant(hash)?.grant ?? store.grantsList().find((g) => g.refresh_hash === hash && !g.revoked_at);
      if (!grant) continue;
      if (clientId !== null && grant.client_id !== clientId) return;
      if (store.revoke(grant.id, "revoked_by_client"))
        this.audit("auth.revoked", {
          client_id: grant.client_id,
          client_name: grant.client_name,
          grant_id: grant.id,
          reason: "revoked_by_client",
          ...(store === this.stores.of(null) ? {} : vaultNamed(grant.resource)),
        });
      return;
    }
  }

  /**
   * Who an access token is, if it is live and minted for `base`; else null. Its folders are the
   * grant's, so every token a refresh mints keeps what the owner chose.
   */
  verifyAccess(token: string, base: string, vault: string | null = null): AccessHolder | null {
    const hash = hashSecret(token);
    // Looked up only in the vault's own store, and its resource must be that vault's (RFC 8707).
    const hit = this.stores.of(vault).accessGrant(hash);
    if (!hit || hit.grant.resource !== resourceOf(base, vault)) return null;
    return { id: hit.grant.id, scopes: hit.scopes, grant: hit.grant.folders ?? null };
  }

  /** The grant a predicate picks and the store that holds it, in the default vault's store first. */
  private find(pick: (g: Grant) => boolean): { store: OAuthStore; grant: Grant } | null {
    for (const store of this.stores.all()) {
      const grant = store.grantsList().find(pick);
      if (grant) return { store, grant };
    }
    return null;
  }

  private accessRecord(token: string, grantId: string) {
    return { hash: hashSecret(token), grant_id: grantId, expires_at: new Date(Date.now() + this.lifetimes().accessSeconds * 1000).toISOString() };
  }

  private refreshExpiry(from: Date): string {
    return new Date(from.getTime() + this.lifetimes().refreshDays * 86_400_000).toISOString();
  }

  private response(access: string, refresh: string, scopes: Scope[]): TokenResponse {
    return { access_token: access, token_type: "Bearer", expires_in: this.lifetimes().accessSeconds, refresh_token: refresh, scope: scopes.join(" ") };
  }

  private fail(code: "invalid_grant" | "invalid_target" | "invalid_scope", message: string, fields: AuditFields): OAuthError {
    this.audit("auth.failed", { endpoint: "token", ...fields });
    return new OAuthError(code, message);
  }
}

/** The resource (RFC 8707) of the default vault (the base) or of a named vault. */
export function resourceOf(base: string, vault: string | null): string {
  return vault === null ? base : `${base}${vaultResourcePath(vault)}`;
}

/** The audit field naming a grant's vault, read from its resource; nothing for the default vault. */
function vaultField(grant: Grant, base: string): { vault?: string } {
  const vault = vaultOfResource(grant.resource, base);
  return vault === null ? {} : { vault };
}

/** A named vault's name from its resource's path (`…/mcp/<name>`), whatever the base it was granted at. */
function vaultNamed(resource: string): { vault?: string } {
  const name = /\/mcp\/([^/]+)$/.exec(resource)?.[1];
  return name === undefined ? {} : { vault: name };
}
