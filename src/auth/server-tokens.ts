import { dirname, join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import type { Scope } from "../ops/define.ts";
import { type GrantSpec, GrantSpecSchema, isRestricting, validateGrantSpec } from "../ops/grant.ts";
import { findByToken, newTokenRecord, TOKEN_RECORD_FIELDS, TokenFile } from "./token-file.ts";

/** What one vault of a several-vault token may see: its own folder grant (absent: the whole vault). */
const VaultEntrySchema = Type.Object({ name: Type.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,63}$" }), grant: Type.Optional(GrantSpecSchema) });

const ServerTokenSchema = Type.Object({
  ...TOKEN_RECORD_FIELDS,
  vaults: Type.Array(VaultEntrySchema, { minItems: 2, maxItems: 64 }),
});
export type ServerToken = Static<typeof ServerTokenSchema> & { scopes: Scope[] };
export type VaultEntry = Static<typeof VaultEntrySchema>;

/** The file beside the config file that holds tokens for several vaults (docs/decisions.md, "A token for several vaults"). */
export const SERVER_TOKENS_FILE = "vault-tokens.json";

/**
 * Tokens for several named vaults of one server, kept as hashes beside the config file that names
 * those vaults: one record per token, so one write creates it on all its vaults and one write
 * revokes it from all of them (docs/decisions.md, "A token for several vaults"). A vault's own
 * tokens.json keeps its single-vault tokens; its TokenStore asks this file for the rest.
 */
export class ServerTokenStore {
  private readonly stored: TokenFile<typeof ServerTokenSchema>;

  constructor(configPath: string) {
    this.stored = new TokenFile(
      join(dirname(configPath), SERVER_TOKENS_FILE),
      ServerTokenSchema,
      `${SERVER_TOKENS_FILE} beside the config file is unreadable; fix or delete it.`,
    );
  }

  get file(): string {
    return this.stored.file;
  }

  create(name: string, scopes: Scope[], vaults: VaultEntry[]): { token: string; record: ServerToken } {
    const names = vaults.map((v) => v.name);
    if (new Set(names).size !== names.length || names.length < 2)
      throw new IndxError("validation_failed", "--vaults names two or more different vaults (one vault: use --vault).", { vaults: names });
    const { token, ...base } = newTokenRecord(name, scopes);
    const record: ServerToken = {
      ...base,
      vaults: vaults.map((v) => ({ name: v.name, ...(isRestricting(v.grant) ? { grant: validateGrantSpec(v.grant) } : {}) })),
    };
    this.stored.write([...this.stored.read(), record]);
    return { token, record };
  }

  /** Every several-vault token, or those that reach `vault`; never the hashes. */
  list(vault?: string): Omit<ServerToken, "hash">[] {
    return this.stored
      .read()
      .filter((t) => vault === undefined || t.vaults.some((v) => v.name === vault))
      .map(({ hash: _hash, ...rest }) => rest);
  }

  /** Ends a token (by id or name) on every vault it reached at once; false when none matches. */
  revoke(id: string): boolean {
    const before = this.stored.read();
    const after = before.filter((t) => t.id !== id && t.name !== id);
    if (after.length === before.length) return false;
    this.stored.write(after);
    return true;
  }

  /** The token presented, if it is one of these and reaches `vault`: its id, scopes and that vault's grant. */
  verify(presented: string, vault: string): { id: string; scopes: Scope[]; grant: GrantSpec | null } | null {
    const hit = findByToken(this.stored.fresh(), presented);
    const entry = hit?.vaults.find((v) => v.name === vault);
    if (!hit || !entry) return null;
    return { id: hit.id, scopes: hit.scopes, grant: isRestricting(entry.grant) ? entry.grant : null };
  }
}

/**
 * The per-vault grants of `indx token create --vaults a,b`: a glob `a:Projects/**` is vault a's
 * alone, a glob without a vault's name before a colon is every vault's (docs/decisions.md, "A
 * token for several vaults"). Each vault's grant is checked like a one-vault token's.
 */
export function grantsPerVault(vaults: string[], globs: GrantSpec): VaultEntry[] {
  const prefixed = (glob: string): [string, string] | null => {
    const i = glob.indexOf(":");
    if (i <= 0) return null;
    const name = glob.slice(0, i);
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(name)) return null;
    if (!vaults.includes(name))
      throw new IndxError("validation_failed", `The glob ${glob} names vault ${name}, which this token is not for (--vaults ${vaults.join(",")}).`, {
        vault: name,
      });
    return [name, glob.slice(i + 1)];
  };
  return vaults.map((name) => {
    const spec: GrantSpec = {};
    for (const kind of ["read", "write", "deny"] as const) {
      const list = globs[kind];
      if (list === undefined) continue;
      const mine = list.flatMap((g) => {
        const p = prefixed(g);
        return p === null ? [g] : p[0] === name ? [p[1]] : [];
      });
      // A kind given only for other vaults leaves this vault unlimited in it, not limited to nothing.
      if (mine.length > 0) spec[kind] = mine;
    }
    const grant = validateGrantSpec(spec);
    return { name, ...(isRestricting(grant) ? { grant } : {}) };
  });
}
