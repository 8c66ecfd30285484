import { timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import type { Scope } from "../ops/define.ts";
import { type GrantSpec, GrantSpecSchema, isRestricting, validateGrantSpec } from "../ops/grant.ts";
import type { ServerTokenStore } from "./server-tokens.ts";
import { findByToken, newTokenRecord, sha256, TOKEN_RECORD_FIELDS, TokenFile } from "./token-file.ts";

export { newToken } from "./token-file.ts";

export const ALL_SCOPES: readonly Scope[] = ["vault:read", "vault:write", "vault:admin"];

/** The identity of the admin key from the config file (stored tokens have ids tok_…). */
const ADMIN_ID = "admin";

const StoredTokenSchema = Type.Object({
  ...TOKEN_RECORD_FIELDS,
  /** Folder grant (docs/permissions.md): the globs it may read, write, and never see; none: the whole vault. */
  grant: Type.Optional(GrantSpecSchema),
});
export type StoredToken = Static<typeof StoredTokenSchema> & { scopes: Scope[] };

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(sha256(a), "hex");
  const y = Buffer.from(sha256(b), "hex");
  return timingSafeEqual(x, y);
}

export function parseScopes(raw: string | string[] | undefined): Scope[] {
  const list = (Array.isArray(raw) ? raw : (raw ?? "vault:read").split(",")).map((s) => s.trim()).filter(Boolean);
  for (const s of list)
    if (!ALL_SCOPES.includes(s as Scope))
      throw new IndxError("validation_failed", `Unknown scope: ${s}. Use ${ALL_SCOPES.join(", ")}.`, { scope: s, known: ALL_SCOPES });
  if (list.length === 0) throw new IndxError("validation_failed", "At least one scope is required.");
  return [...new Set(list)] as Scope[];
}

/**
 * Bearer tokens of one vault, kept as hashes in tokens.json beside the index (state, not derived
 * data: a rebuild never loses them). The admin key from the config file is checked separately.
 */
export class TokenStore {
  private readonly stored: TokenFile<typeof StoredTokenSchema>;

  constructor(
    dataDir: string,
    /** A named vault of a server: the server's tokens for several vaults that reach it are its tokens too (docs/decisions.md, "A token for several vaults"). */
    private readonly shared?: { store: ServerTokenStore; vault: string },
  ) {
    this.stored = new TokenFile(join(dataDir, "tokens.json"), StoredTokenSchema, "tokens.json in the data directory is unreadable; fix or delete it.");
    this.stored.read();
  }

  get file(): string {
    return this.stored.file;
  }

  create(name: string, scopes: Scope[], grant?: GrantSpec): { token: string; record: StoredToken } {
    const { token, ...base } = newTokenRecord(name, scopes);
    const record: StoredToken = { ...base, ...(isRestricting(grant) ? { grant: validateGrantSpec(grant) } : {}) };
    this.stored.write([...this.stored.read(), record]);
    return { token, record };
  }

  list(): Omit<StoredToken, "hash">[] {
    return this.stored.read().map(({ hash: _hash, ...rest }) => rest);
  }

  revoke(id: string): boolean {
    const before = this.stored.read();
    const after = before.filter((t) => t.id !== id && t.name !== id);
    if (after.length === before.length) return false;
    this.stored.write(after);
    return true;
  }

  /** Who a presented token is (the token's id, or "admin" for the admin key), its scopes and its folder grant, or null. */
  verify(presented: string, adminKey: string | null): { id: string; scopes: Scope[]; grant: GrantSpec | null } | null {
    if (adminKey && sameSecret(presented, adminKey)) return { id: ADMIN_ID, scopes: [...ALL_SCOPES], grant: null };
    const hit = findByToken(this.stored.fresh(), presented);
    if (hit) return { id: hit.id, scopes: hit.scopes, grant: isRestricting(hit.grant) ? hit.grant : null };
    return this.shared?.store.verify(presented, this.shared.vault) ?? null;
  }
}
