import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import { writeFileAtomic } from "../core/write-file-atomic.ts";
import type { Scope } from "../ops/define.ts";
import { type GrantSpec, GrantSpecSchema, isRestricting, validateGrantSpec } from "../ops/grant.ts";
import type { ServerTokenStore } from "./server-tokens.ts";

export const ALL_SCOPES: readonly Scope[] = ["vault:read", "vault:write", "vault:admin"];

/** The identity of the admin key from the config file (stored tokens have ids tok_…). */
const ADMIN_ID = "admin";

const StoredTokenSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.Union([Type.Literal("vault:read"), Type.Literal("vault:write"), Type.Literal("vault:admin")])),
  /** sha256 of the token, hex; the token itself is shown once and never stored. */
  hash: Type.String({ pattern: "^[0-9a-f]{64}$" }),
  created_at: Type.String(),
  /** Folder grant (docs/permissions.md): the globs it may read, write, and never see; none: the whole vault. */
  grant: Type.Optional(GrantSpecSchema),
});
export type StoredToken = Static<typeof StoredTokenSchema> & { scopes: Scope[] };

/** tokens.json as indx writes it; a file that is not (edited by hand, cut short) is refused whole. */
const TokensFile = Type.Object({ tokens: Type.Optional(Type.Array(StoredTokenSchema)) });

export function newToken(): string {
  return `indx_${randomBytes(32).toString("base64url")}`;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

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
  readonly file: string;
  private tokens: StoredToken[];
  /** mtime and size of tokens.json when it was read: a change means another process wrote it. */
  private loadedStamp = "";

  constructor(
    dataDir: string,
    /** A named vault of a server: the server's tokens for several vaults that reach it are its tokens too (docs/decisions.md, "A token for several vaults"). */
    private readonly shared?: { store: ServerTokenStore; vault: string },
  ) {
    this.file = join(dataDir, "tokens.json");
    this.tokens = this.read();
  }

  private stamp(): string {
    try {
      const st = statSync(this.file);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      return "";
    }
  }

  private read(): StoredToken[] {
    this.loadedStamp = this.stamp();
    if (!existsSync(this.file)) return [];
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(this.file, "utf8"));
    } catch {
      data = null;
    }
    // A token without its hash, or with a scope indx does not know, must not half-work.
    if (!Value.Check(TokensFile, data)) throw new IndxError("internal", "tokens.json in the data directory is unreadable; fix or delete it.");
    return data.tokens ?? [];
  }

  private write(): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.file, `${JSON.stringify({ tokens: this.tokens }, null, 2)}\n`, 0o600);
    this.loadedStamp = this.stamp();
  }

  /**
   * Re-reads the file when another process (`indx token create` / `revoke`) changed it, so a new
   * token works and a revoked one stops working on the very next request.
   */
  refresh(): void {
    if (this.stamp() !== this.loadedStamp) this.tokens = this.read();
  }

  create(name: string, scopes: Scope[], grant?: GrantSpec): { token: string; record: StoredToken } {
    if (!name.trim() || name.length > 100) throw new IndxError("validation_failed", "A token needs a name of 1–100 characters.");
    const token = newToken();
    const record: StoredToken = {
      id: `tok_${randomBytes(6).toString("hex")}`,
      name: name.trim(),
      scopes,
      hash: sha256(token),
      created_at: new Date().toISOString(),
      ...(isRestricting(grant) ? { grant: validateGrantSpec(grant) } : {}),
    };
    this.tokens = [...this.read(), record];
    this.write();
    return { token, record };
  }

  list(): Omit<StoredToken, "hash">[] {
    return this.read().map(({ hash: _hash, ...rest }) => rest);
  }

  revoke(id: string): boolean {
    const before = this.read();
    this.tokens = before.filter((t) => t.id !== id && t.name !== id);
    if (this.tokens.length === before.length) return false;
    this.write();
    return true;
  }

  /** Who a presented token is (the token's id, or "admin" for the admin key), its scopes and its folder grant, or null. */
  verify(presented: string, adminKey: string | null): { id: string; scopes: Scope[]; grant: GrantSpec | null } | null {
    if (adminKey && sameSecret(presented, adminKey)) return { id: ADMIN_ID, scopes: [...ALL_SCOPES], grant: null };
    this.refresh();
    const hash = sha256(presented);
    const hit = this.tokens.find((t) => timingSafeEqual(Buffer.from(t.hash, "hex"), Buffer.from(hash, "hex")));
    if (hit) return { id: hit.id, scopes: hit.scopes, grant: isRestricting(hit.grant) ? hit.grant : null };
    return this.shared?.store.verify(presented, this.shared.vault) ?? null;
  }
}
