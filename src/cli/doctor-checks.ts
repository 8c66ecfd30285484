import { accessSync, constants, existsSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { App } from "../app/context.ts";
import { CONFIG_KEYS } from "../config/keys.ts";
import { type Config, loadConfig } from "../config/load.ts";
import { CORRUPT_INDEX_FIX, indexCorruptError, toIndxError } from "../core/errors.ts";
import { currentPlatform } from "../core/platform-dirs.ts";
import { didYouMean } from "../core/suggest.ts";
import { bindsLoopbackOnly, checkBind } from "../http/bind-policy.ts";
import { loadTlsPair, tlsFilesOf } from "../http/tls.ts";
import { checkIntegrity } from "../index/storage/integrity.ts";
import { vecLoads } from "../index/storage/sqlite-vec.ts";
import { vaultStatus } from "../maintenance/ops.ts";
import { OAuthStore } from "../oauth/store.ts";
import { invokeOp } from "../ops/invoke.ts";
import { probeChat } from "../providers/probe.ts";
import type { AiSettings } from "../providers/settings.ts";
import { runCommand, serviceStatus } from "../service/manager.ts";
import { scanVault } from "../vault/scan.ts";
import { dataDirError, Vault } from "../vault/vault.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

const ok = (name: string, message: string): Check => ({ name, status: "ok", message });
const warn = (name: string, message: string, fix?: string): Check => ({ name, status: "warn", message, ...(fix ? { fix } : {}) });
const fail = (name: string, message: string, fix?: string): Check => ({ name, status: "fail", message, ...(fix ? { fix } : {}) });

/** Group and other bits set on a file that should be the owner's alone (Windows has no such modes). */
function looseMode(path: string, allowed: number): boolean {
  return process.platform !== "win32" && (statSync(path).mode & 0o777 & ~allowed) !== 0;
}

/**
 * Everything `indx doctor` looks at, in order, each with what to do about it. The checks never
 * change anything; a check that cannot run because an earlier one failed is left out.
 */
export async function runChecks(flags: Record<string, unknown>, opts: { full?: boolean } = {}): Promise<Check[]> {
  const checks: Check[] = [];
  let config: Config;
  try {
    config = loadConfig({ flags });
  } catch (err) {
    return [fail("config", toIndxError(err).message, "fix the file named by `indx config path`")];
  }
  checks.push(...configChecks(config));

  let vault: Vault;
  try {
    vault = Vault.open(config);
    readdirSync(vault.root);
  } catch (err) {
    checks.push(fail("vault", toIndxError(err).message, "indx init --vault <folder>   (or indx config set vault <folder>)"));
    return [...checks, sqliteVecCheck(), await portCheck(config)];
  }
  checks.push(ok("vault", `${vault.root} is readable`));
  checks.push(dataDirCheck(vault));
  const ctx = new App(vault);
  try {
    checks.push(await indexCheck(ctx, opts.full === true));
    checks.push(sqliteVecCheck());
    checks.push(await providerCheck(ctx));
    checks.push(await chatCheck(ctx));
  } finally {
    ctx.close();
  }
  checks.push(await portCheck(config));
  checks.push(adminTokenCheck(config));
  checks.push(...deploymentChecks(config));
  checks.push(oauthCheck(config, vault));
  checks.push(serviceCheck());
  return checks;
}

/**
 * OAuth (docs/remote-access.md): on or off, how many grants are live, and whether a server reached
 * beyond loopback will advertise the URL clients use. Without server.public_url or a trusted proxy
 * the metadata names whatever Host each request sent, and a token minted for one name fails on another.
 */
function oauthCheck(config: Config, vault: Vault): Check {
  if (config.get<boolean>("server.auth") === false) return ok("oauth", "off: server.auth is off, so is OAuth");
  if (config.get<boolean>("server.oauth") === false) return ok("oauth", "off (server.oauth): clients use bearer tokens only");
  let live: number;
  try {
    const now = Date.now();
    live = new OAuthStore(vault.dataDir).grantsList().filter((g) => !g.revoked_at && Date.parse(g.expires_at) > now).length;
  } catch (err) {
    return fail("oauth", toIndxError(err).message, "fix or delete oauth.json in the data folder (OAuth clients then connect again)");
  }
  const grants = `${live} live grant${live === 1 ? "" : "s"} (indx token list)`;
  const publicUrl = config.str("server.public_url");
  if (publicUrl) return ok("oauth", `on, advertised at ${publicUrl}; ${grants}`);
  const host = config.str("server.host") ?? "127.0.0.1";
  if (bindsLoopbackOnly(host)) return ok("oauth", `on, for the origin each request reaches; ${grants}`);
  if (config.list("server.trusted_proxies").length > 0)
    return ok("oauth", `on, for the origin your trusted proxy forwards (X-Forwarded-Proto/-Host); ${grants}`);
  return warn(
    "oauth",
    `on, but indx serve binds ${host} with no server.public_url: OAuth metadata names whatever Host a request sent; ${grants}`,
    "indx config set server.public_url https://<the name clients use>",
  );
}

/** A certificate that will expire this soon is worth a warning (a renewal job has failed). */
const CERT_WARN_DAYS = 14;

/** TLS files that load and are not about to expire; a bind `indx serve` would refuse (docs/remote-access.md, Deployment). */
function deploymentChecks(config: Config): Check[] {
  const checks: Check[] = [];
  let tls = false;
  try {
    const files = tlsFilesOf(config.str("server.tls_cert"), config.str("server.tls_key"));
    if (files) {
      const pair = loadTlsPair(files);
      tls = true;
      const days = Math.floor((Date.parse(pair.notAfter) - Date.now()) / 86_400_000);
      checks.push(
        days < 0
          ? fail("tls", `the certificate expired on ${pair.notAfter}`, "renew it (indx serve picks up the new files without a restart)")
          : days < CERT_WARN_DAYS
            ? warn("tls", `the certificate expires in ${days} days (${pair.notAfter})`, "renew it (indx serve picks up the new files without a restart)")
            : ok("tls", `serving https; the certificate is valid until ${pair.notAfter}`),
      );
    }
  } catch (err) {
    checks.push(fail("tls", toIndxError(err).message, "fix server.tls_cert / server.tls_key (indx config set …)"));
    return checks;
  }
  const host = config.str("server.host") ?? "127.0.0.1";
  try {
    const forced = checkBind({
      host,
      tls,
      trustedProxies: config.list("server.trusted_proxies").length,
      allowInsecure: config.get<boolean>("server.allow_insecure_bind") === true,
    });
    if (forced)
      checks.push(warn("bind", `indx serve will serve plain http on ${host} (server.allow_insecure_bind)`, "serve https, or put a TLS proxy in front"));
  } catch {
    checks.push(
      fail(
        "bind",
        `indx serve will refuse to serve plain http on ${host}`,
        "set server.tls_cert and server.tls_key, or list your proxy in server.trusted_proxies (docs/remote-access.md, Deployment)",
      ),
    );
  }
  return checks;
}

/** Whether `indx service install` put a service in place and whether it runs (the service manager is asked only when it did). */
function serviceCheck(): Check {
  const s = serviceStatus({ platform: currentPlatform(), run: runCommand, uid: process.getuid?.() ?? 0 });
  if (!s.installed) return ok("service", "no indx service installed (indx service install keeps indx serve running)");
  if (s.running) return ok("service", `the ${s.manager} service is running (logs: ${s.logs})`);
  return warn("service", `the ${s.manager} service is installed but ${s.state}`, `see its logs (${s.logs}), then indx service install to start it again`);
}

function configChecks(config: Config): Check[] {
  const checks: Check[] = [];
  const known = CONFIG_KEYS.map((k) => k.key);
  if (config.unknownKeys.length === 0) checks.push(ok("config", config.fileExists ? `${config.path}: every key is known` : "no config file (defaults)"));
  else
    checks.push(
      warn(
        "config",
        `${config.path}: unknown ${config.unknownKeys.length === 1 ? "key" : "keys"} ${config.unknownKeys.map((k) => `${k} (ignored).${didYouMean(k, known)}`).join(" ")}`,
        "rename or remove the key (indx config get lists them all)",
      ),
    );
  if (config.fileExists && looseMode(config.path, 0o600))
    checks.push(warn("config_mode", `${config.path} can be read by other users and may hold the admin token`, `chmod 600 ${config.path}`));
  return checks;
}

function dataDirCheck(vault: Vault): Check {
  const dir = vault.dataDir;
  if (!existsSync(dir)) return warn("data_dir", `${dir} does not exist yet`, "indx vault index");
  const unusable = dataDirError(dir);
  if (unusable) return fail("data_dir", `${dir} is a file, not a folder: the index and tokens cannot be kept there`, String(unusable.details?.fix));
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return fail("data_dir", `${dir} is not writable: the index cannot be updated`, `chmod u+w ${dir}`);
  }
  if (looseMode(dir, 0o700)) return warn("data_dir", `${dir} is open to other users (tokens, events)`, `chmod 700 ${dir}`);
  const tokens = join(dir, "tokens.json");
  if (existsSync(tokens) && looseMode(tokens, 0o600)) return warn("data_dir", `${tokens} can be read by other users`, `chmod 600 ${tokens}`);
  return ok("data_dir", `${dir} is writable and private`);
}

/** How long `indx doctor` lets SQLite check the index file (about a gigabyte here); `--full` waits for the whole check. */
const INTEGRITY_BUDGET_MS = 5_000;

/**
 * The index exists, is of this version and configuration, is whole (SQLite's own check, bounded
 * in time: src/index/storage/integrity.ts), and holds exactly the files on disk.
 */
async function indexCheck(ctx: App, full: boolean): Promise<Check> {
  let stored: Map<string, { size: number; mtimeMs: number }>;
  try {
    stored = new Map(ctx.index.files.stored().map((f) => [f.path, f]));
  } catch (err) {
    const e = toIndxError(err);
    return fail("index", e.message, String(e.details?.fix ?? "indx vault index"));
  }
  const integrity = await checkIntegrity(ctx.index.path, full ? Number.POSITIVE_INFINITY : INTEGRITY_BUDGET_MS);
  if (integrity.state === "damaged") {
    const e = indexCorruptError(`SQLite's integrity check found damage (${integrity.problem.replace(/\s*\n\s*/g, "; ").slice(0, 300)})`);
    return fail("index", e.message, CORRUPT_INDEX_FIX);
  }
  const { files } = scanVault(ctx.vault.root, ctx.vault.exclusions);
  let changed = 0;
  for (const f of files) {
    const s = stored.get(f.path);
    if (!s || s.size !== f.size || s.mtimeMs !== f.mtimeMs) changed++;
    stored.delete(f.path);
  }
  const behind = changed + stored.size;
  if (files.length === 0) return warn("index", "the vault folder has no files to index: is it the right folder?", "indx config set vault <folder>");
  if (behind > 0) return warn("index", `${behind} of ${files.length} files changed since the last index run`, "indx vault index");
  if (integrity.state === "unfinished")
    return warn("index", `${files.length} files, all current; the integrity check did not finish in ${INTEGRITY_BUDGET_MS / 1000} s`, "indx doctor --full");
  return ok("index", `${files.length} files, all current, and the file is whole`);
}

function sqliteVecCheck(): Check {
  if (vecLoads()) return ok("sqlite_vec", "the sqlite-vec extension loads");
  const why = process.platform === "darwin" ? "macOS's SQLite cannot load extensions" : "the sqlite-vec extension does not load here";
  return warn("sqlite_vec", `${why}: semantic search scans the stored vectors exactly (same results, slower above 4,000 chunks)`);
}

async function providerCheck(ctx: App): Promise<Check> {
  const { result } = await invokeOp(vaultStatus, ctx, { probe: true });
  const e = result.embeddings;
  if (!e.configured) return ok("provider", "no embeddings provider configured: lexical search only");
  if (e.probe && !e.probe.ok)
    return fail(
      "provider",
      `${e.provider} ${e.model}: ${e.probe.error?.message ?? "does not answer"}`,
      e.probe.error?.kind === "model_missing" ? `ollama pull ${e.model}` : "start the provider, or check embeddings.* with indx config get",
    );
  if (e.state === "incompatible") return fail("provider", `the stored vectors are of another model than ${e.model}`, "indx vault index --reembed");
  if (e.state === "misconfigured") return fail("provider", `${e.provider} is not fully configured`, "indx config get embeddings");
  return ok("provider", `${e.provider} ${e.model} answers${e.probe ? ` (${e.probe.latency_ms} ms)` : ""}; embeddings ${e.state}`);
}

/** The chat model of the AI operations: configured or not, and whether it answers a one-word request. */
async function chatCheck(ctx: App): Promise<Check> {
  let settings: AiSettings;
  try {
    settings = ctx.ai.settings();
  } catch (err) {
    return fail("chat", toIndxError(err).message, "indx config get ai");
  }
  if (!settings.enabled) return ok("chat", "AI is turned off (ai.enabled = false)");
  if (!settings.chat) return ok("chat", "no chat model configured: the AI operations are off (set INDX_AI_PROVIDER and INDX_AI_MODEL)");
  const { provider, model } = settings.chat;
  const probe = await probeChat(ctx.ai.chat());
  if (probe.ok) return ok("chat", `${provider} ${model} answers (${probe.latency_ms} ms)`);
  const kind = probe.error?.kind;
  const fix =
    kind === "model_missing" && provider === "ollama"
      ? `ollama pull ${model}`
      : kind === "auth"
        ? "check the API key (INDX_OPENAI_API_KEY or INDX_AI_GATEWAY_KEY)"
        : kind === "model_missing"
          ? "check the model name (INDX_AI_MODEL)"
          : "start the provider, or check ai.* and embeddings.*_url with indx config get";
  const why = (probe.error?.message ?? "does not answer").replace(/^[\w-]+ chat: /, "");
  return fail("chat", `${provider} ${model}: ${why}`, fix);
}

async function portCheck(config: Config): Promise<Check> {
  const host = config.str("server.host") ?? "127.0.0.1";
  const port = config.int("server.port");
  if (port === 0) return ok("port", "server.port 0: indx serve picks a free port");
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
  return free
    ? ok("port", `${host}:${port} is free for indx serve`)
    : warn("port", `${host}:${port} is in use (another indx serve?)`, "indx serve --port <n>, or indx config set server.port <n>");
}

function adminTokenCheck(config: Config): Check {
  if (config.get<boolean>("server.auth") === false)
    return warn("token", "server.auth is off: the server takes requests without a token", "indx config set server.auth true");
  if (config.str("server.api_key")) return ok("token", "an admin token is set (indx config reveal-api-key prints it)");
  return warn("token", "no admin token yet", "indx init, or the first indx serve creates one");
}
