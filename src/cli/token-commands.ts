import type { CommandDef } from "citty";
import { grantsPerVault, ServerTokenStore, type VaultEntry } from "../auth/server-tokens.ts";
import { parseScopes, TokenStore } from "../auth/tokens.ts";
import { namedVaults, VAULT_NAME } from "../config/load.ts";
import { IndxError } from "../core/errors.ts";
import { EventHub } from "../events/hub.ts";
import { EventLog } from "../events/log.ts";
import { OAuthStore } from "../oauth/store.ts";
import { type GrantSpec, validateGrantSpec } from "../ops/grant.ts";
import { compileGrant } from "../vault/grant.ts";
import { Vault } from "../vault/vault.ts";
import { command } from "./command.ts";
import { configFromFlags, type GlobalFlags } from "./context.ts";
import { selectPlainFields } from "./fields.ts";
import { print } from "./io.ts";
import { chooseFormat, NO_RESULTS, render } from "./output.ts";

const out = (flags: GlobalFlags, data: unknown, human: () => string) =>
  print(render(selectPlainFields(data), chooseFormat(flags, process.stdout.isTTY === true), human));

const tokenCreate = command({
  description: "Create a bearer token for this vault's server, or for several of its named vaults (--vaults). It is shown once; only its hash is kept.",
  examples: [
    "indx token create --name agent --scopes vault:read",
    "indx token create --name editor --scopes vault:read,vault:write",
    "indx token create --name drafter --scopes vault:read,vault:write --read 'Projects/**' --write 'Inbox/**' --deny 'Projects/Secret/**'",
    "indx token create --name both --vaults work,personal --read 'work:Projects/**' --read 'personal:Journal/**'",
  ],
  long:
    "--read, --write and --deny give the token a folder grant (docs/permissions.md): vault-relative globs, each flag repeatable. Deny wins; a path it may write it may read; without globs the token sees the whole vault.\n" +
    "--vaults a,b makes one token for several named vaults ([vaults.<name>] in the config file); `revoke` ends it on all of them. A glob written `a:Projects/**` is vault a's alone; a glob without a vault's name is every vault's.",
  args: {
    name: { type: "string", required: true, description: "A name to recognise it by." },
    scopes: { type: "string", description: "Comma-separated: vault:read, vault:write, vault:admin (default vault:read)." },
    vaults: { type: "string", description: "Comma-separated names of two or more named vaults this one token reaches." },
    read: { type: "string", description: "Folder grant: a glob of paths it may read (repeatable), e.g. 'Projects/**' or 'work:Projects/**'." },
    write: { type: "string", description: "Folder grant: a glob of paths it may write (repeatable), e.g. 'Inbox/**'." },
    deny: { type: "string", description: "Folder grant: a glob of paths it may never see (repeatable); wins over --read and --write." },
  },
  run(flags, rawArgs) {
    if (flags.vaults !== undefined) return createForVaults(flags, flags.vaults, rawArgs);
    const vault = Vault.open(configFromFlags(flags));
    const spec = grantFromFlags(rawArgs);
    // Compiled once here so a glob that does not compile is refused now, not on the first request.
    compileGrant(spec);
    const { token, record } = new TokenStore(vault.ensureDataDir()).create(flags.name, parseScopes(flags.scopes), spec);
    const { hash: _hash, ...shown } = record;
    out(flags, { token, ...shown }, () => `${token}\n(id ${record.id}, scopes ${record.scopes.join(",")}${grantText(record.grant)}; shown once, store it now)`);
  },
});

/** `token create --vaults a,b`: one record beside the config file naming each vault and its grant (docs/decisions.md, "A token for several vaults"). */
function createForVaults(flags: GlobalFlags & { name: string; scopes?: string }, list: string, rawArgs: readonly string[]): void {
  const configPath = configFromFlags(flags).path;
  const configured = namedVaults(configPath);
  const names = [...new Set(list.split(",").map((n) => n.trim()))].filter(Boolean);
  for (const n of names)
    if (!VAULT_NAME.test(n) || !configured.has(n))
      throw new IndxError("not_found", `No vault named ${n} in the config file: --vaults takes the names of [vaults.<name>] tables.`, {
        vault: n.slice(0, 64),
        known: [...configured.keys()].sort(),
      });
  const entries = grantsPerVault(names, rawGlobs(rawArgs));
  for (const e of entries) compileGrant(e.grant ?? {});
  const { token, record } = new ServerTokenStore(configPath).create(flags.name, parseScopes(flags.scopes), entries);
  const { hash: _hash, ...shown } = record;
  out(
    flags,
    { token, ...shown },
    () => `${token}\n(id ${record.id}, scopes ${record.scopes.join(",")}, vaults ${vaultsText(record.vaults)}; shown once, store it now)`,
  );
}

/**
 * Every value of a repeatable flag (`--read A --read B`, `--read=A`), read from the arguments
 * themselves: citty keeps only the last one. Undefined when the flag is not given.
 */
function repeated(rawArgs: readonly string[], name: string): string[] | undefined {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i];
    if (a === "--") break;
    if (a === `--${name}` && i + 1 < rawArgs.length) out.push(String(rawArgs[++i]));
    else if (a?.startsWith(`--${name}=`)) out.push(a.slice(name.length + 3));
  }
  return out.length ? out : undefined;
}

function rawGlobs(rawArgs: readonly string[]): GrantSpec {
  const spec: GrantSpec = {};
  for (const kind of ["read", "write", "deny"] as const) {
    const globs = repeated(rawArgs, kind);
    if (globs) spec[kind] = globs;
  }
  return spec;
}

function grantFromFlags(rawArgs: readonly string[]): GrantSpec {
  return validateGrantSpec(rawGlobs(rawArgs));
}

function grantText(grant: GrantSpec | undefined): string {
  if (!grant) return "";
  const parts = (["read", "write", "deny"] as const).flatMap((k) => (grant[k] ? [`${k} ${grant[k].join(" ")}`] : []));
  return parts.length ? `; ${parts.join("; ")}` : "";
}

function vaultsText(vaults: VaultEntry[]): string {
  return vaults.map((v) => (v.grant ? `${v.name} (${grantText(v.grant).slice(2)})` : v.name)).join(", ");
}

/** The named vault `--vault` picks, if it names one (then several-vault tokens are listed only when they reach it). */
function namedVaultOf(flags: GlobalFlags, configPath: string): string | undefined {
  return flags.vault !== undefined && VAULT_NAME.test(flags.vault) && namedVaults(configPath).has(flags.vault) ? flags.vault : undefined;
}

const tokenList = command({
  description:
    "List this vault's tokens (never the tokens themselves): bearer tokens, tokens for several vaults with their vaults, then OAuth grants with their client and scopes.",
  examples: ["indx token list", "indx token list --vault work"],
  args: {},
  run(flags) {
    const config = configFromFlags(flags);
    const dataDir = Vault.open(config).dataDir;
    const bearer = new TokenStore(dataDir).list().map((t) => ({ ...t, kind: "bearer" as const }));
    // A named vault lists the several-vault tokens that reach it; the default vault, all of them (they live beside the config).
    const several = new ServerTokenStore(config.path).list(namedVaultOf(flags, config.path)).map((t) => ({ ...t, kind: "bearer" as const }));
    // One row per OAuth grant: its access and refresh tokens rotate, the grant is what the owner approved and revokes.
    const grants = new OAuthStore(dataDir).grantsList().map((g) => ({
      id: g.id,
      name: g.client_name,
      scopes: g.scopes,
      created_at: g.created_at,
      kind: "oauth" as const,
      client_id: g.client_id,
      redirect_uri: g.redirect_uri,
      resource: g.resource,
      ...(g.folders ? { grant: g.folders } : {}),
      expires_at: g.expires_at,
      ...(g.last_refreshed_at ? { last_refreshed_at: g.last_refreshed_at } : {}),
      ...(g.revoked_at ? { revoked_at: g.revoked_at, revoked_reason: g.revoked_reason } : {}),
    }));
    const tokens = [...bearer, ...several, ...grants];
    const human = (t: (typeof tokens)[number]) => {
      if ("vaults" in t) return `${t.id}  ${t.name}  ${t.scopes.join(",")}  ${t.created_at}  vaults ${vaultsText(t.vaults)}`;
      if (t.kind === "bearer") return `${t.id}  ${t.name}  ${t.scopes.join(",")}  ${t.created_at}${grantText(t.grant)}`;
      return `${t.id}  ${t.name} (OAuth ${t.client_id})  ${t.scopes.join(",")}  ${t.created_at}${grantText(t.grant)}${t.revoked_at ? `  revoked: ${t.revoked_reason}` : ""}`;
    };
    out(flags, tokens, () => tokens.map(human).join("\n") || NO_RESULTS);
  },
});

const tokenRevoke = command({
  description: "Revoke a token by id or name (a token for several vaults, on all of them), or an OAuth grant (oauth_…: every token of that client's grant).",
  examples: ["indx token revoke agent"],
  args: { id: { type: "positional", required: true, description: "Token id (tok_…), name, or OAuth grant id (oauth_…)." } },
  run(flags) {
    const config = configFromFlags(flags);
    const dataDir = Vault.open(config).dataDir;
    const grant = flags.id.startsWith("oauth_");
    const done = grant
      ? new OAuthStore(dataDir).revoke(flags.id, "revoked_by_owner")
      : new TokenStore(dataDir).revoke(flags.id) || new ServerTokenStore(config.path).revoke(flags.id);
    if (!done) throw new IndxError("not_found", `No token ${flags.id}`, { id: flags.id });
    // The audit trail of OAuth grants lives in events.log (docs/contracts.md, Events).
    if (grant) new EventHub(new EventLog(dataDir)).emit({ kind: "auth.revoked", source: "indx", auth: { grant_id: flags.id, reason: "revoked_by_owner" } });
    out(flags, { id: flags.id, revoked: true }, () => `revoked ${flags.id}`);
  },
});

export const tokenCommand: CommandDef = {
  meta: { description: "Manage bearer tokens for `indx serve`." },
  subCommands: { create: tokenCreate, list: tokenList, revoke: tokenRevoke },
};
