import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import type { CommandDef } from "citty";
import { CONFIG_KEYS, KEY_BY_NAME } from "../config/keys.ts";
import { type ConfigChange, setConfigValue } from "../config/set.ts";
import { IndxError } from "../core/errors.ts";
import { didYouMean } from "../core/suggest.ts";
import type { EmbedEstimate } from "../embeddings/job.ts";
import { vaultConfigSet } from "../maintenance/config-set-ops.ts";
import { vaultReindex } from "../maintenance/ops.ts";
import { invokeOp } from "../ops/invoke.ts";
import { parseInput } from "../ops/validate.ts";
import { Vault } from "../vault/vault.ts";
import { command } from "./command.ts";
import { configFromFlags, type GlobalFlags, openContext } from "./context.ts";
import { selectPlainFields } from "./fields.ts";
import { print, printErr } from "./io.ts";
import { chooseFormat, render } from "./output.ts";
import { progressBar } from "./progress.ts";
import { absoluteAsTyped } from "./shell-paths.ts";

const out = (flags: GlobalFlags, data: unknown, human: () => string) =>
  print(render(selectPlainFields(data), chooseFormat(flags, process.stdout.isTTY === true), human));

export const vaultIndexCommand = command({
  description:
    "Bring the index up to date (only changed files are re-read), then embed new and changed chunks when an embeddings provider is configured. --rebuild starts the index from scratch (stored embeddings are kept).",
  runs: vaultReindex,
  examples: ["indx vault index", "indx vault index --rebuild", "indx vault index --reembed   # after changing the embedding model"],
  args: {
    rebuild: { type: "boolean", description: "Drop the index and build it again." },
    reembed: { type: "boolean", description: "Drop every stored vector and embed the whole vault again (after changing the embedding model)." },
    "require-embeddings": { type: "boolean", description: "Exit non-zero when embeddings cannot be made (the lexical index is updated either way)." },
    "no-embeddings": { type: "boolean", description: "Only the lexical index; no embedding requests." },
    yes: { type: "boolean", description: "Embed with a paid model without asking, whatever the estimate." },
  },
  async run(flags, rawArgs) {
    const app = openContext(flags);
    const bar = progressBar("indexing");
    const embedBar = progressBar("embedding");
    const ctx = app.forCall({ progress: bar.update });
    let indexBarCleared = false;
    ctx.embeddings.progress = (done, total) => {
      if (!indexBarCleared) {
        bar.done();
        indexBarCleared = true;
      }
      embedBar.update(done, total);
    };
    ctx.embeddings.approve = (e) => confirmEmbedding(e, flags.yes === true);
    try {
      const { input, result: r } = await invokeOp(vaultReindex, ctx, {
        rebuild: flags.rebuild === true,
        reembed: flags.reembed === true,
        require_embeddings: flags["require-embeddings"] === true,
        embeddings: !(flags["no-embeddings"] === true || rawArgs.includes("--no-embeddings")),
      });
      bar.done();
      embedBar.done();
      out(flags, r, () => {
        const lines = [vaultReindex.summary(r, input)];
        if (r.rebuilt) lines.push(`(new index: ${r.rebuilt})`);
        for (const w of r.warnings.slice(0, 20)) lines.push(`warning: ${w.path ? `${w.path} ` : ""}${w.message}`);
        if (r.warnings.length > 20) lines.push(`… and ${r.warnings.length - 20} more (indx vault status)`);
        return lines.join("\n");
      });
      // Piped JSON carries the warnings; a person at a terminal sees embedding trouble on stderr too.
      if (process.stdout.isTTY !== true)
        for (const w of r.warnings) if (w.code.startsWith("embeddings_") || w.code === "vault_empty") printErr(`warning: ${w.message}`);
    } finally {
      bar.done();
      embedBar.done();
      app.close();
    }
  },
});

/** Above this estimate, a run with a paid embeddings model asks first on a terminal (docs/decisions.md, "A cost cap that holds"). */
const CONFIRM_ABOVE_USD = 0.1;

/** Shows what a paid embedding run will cost; on a terminal, above the threshold and without --yes, asks. */
function confirmEmbedding(e: EmbedEstimate, yes: boolean): boolean {
  printErr(`Embedding ${e.chunks} chunks (about ${e.tokens} tokens) with ${e.provider}/${e.model}: about $${e.usd.toFixed(4)}.`);
  if (yes || e.usd <= CONFIRM_ABOVE_USD || !process.stdin.isTTY || !process.stderr.isTTY) return true;
  const answer = prompt("Continue? [y/N]")?.trim().toLowerCase();
  return answer === "y" || answer === "yes";
}

export const serveCommand = command({
  description: "Serve the vault over REST and MCP (HTTP), keeping the index current.",
  long:
    "REST at /v1 (with /v1/events, /docs, /openapi.json, /health, /metrics) and MCP at /mcp. The vault is watched and the index (and embeddings) kept current. On a terminal the log is human lines; piped, JSON lines (INDX_LOG=json|human|off).\n\n" +
    "Reaching it from other machines (docs/remote-access.md, Deployment): server.tls_cert and server.tls_key serve https (a renewed pair is picked up without a restart); behind a reverse proxy, list it in server.trusted_proxies and set server.public_url. Binding beyond loopback with neither TLS nor a trusted proxy is refused unless forced with --insecure-bind (or server.allow_insecure_bind = true).",
  examples: [
    "indx serve",
    "indx serve --port 9000 --vault ~/Notes",
    "indx config set server.tls_cert /etc/indx/fullchain.pem && indx config set server.tls_key /etc/indx/privkey.pem && indx serve --host 0.0.0.0",
    "indx serve --host 0.0.0.0 --insecure-bind   # plain http on the LAN, knowingly",
  ],
  args: {
    host: { type: "string", description: "Bind address (default 127.0.0.1; config server.host, INDX_HOST)." },
    port: { type: "string", description: "Port (default 8787; 0 picks a free one; config server.port, INDX_PORT)." },
    "no-watch": { type: "boolean", description: "Do not watch the vault for changes." },
    "insecure-bind": {
      type: "boolean",
      description: "Serve plain http beyond loopback without TLS or a trusted proxy (refused otherwise; config server.allow_insecure_bind).",
    },
  },
  async run(flags, rawArgs) {
    const ctx = openContext(flags, { "server.host": flags.host, "server.port": flags.port });
    const { startServer } = await import("../http/serve.ts");
    const bar = progressBar("indexing");
    const server = await startServer(ctx, {
      host: ctx.vault.config.str("server.host") ?? "127.0.0.1",
      port: ctx.vault.config.int("server.port"),
      watch: flags["no-watch"] !== true && !rawArgs.includes("--no-watch"),
      insecureBind: flags["insecure-bind"] === true,
      onIndexProgress: bar.update,
    });
    bar.done();
    const shutdown = () => {
      void server.stop().then(() => process.exit(0));
    };
    process.on("SIGINT", shutdown);
    process.on("SIGTERM", shutdown);
    await new Promise(() => {}); // serve until signalled
  },
});

const configGet = command({
  description: "Show the effective configuration (or one key) and where each value comes from. Secrets show as set/unset.",
  examples: ["indx config get", "indx config get server.port"],
  args: { key: { type: "positional", required: false, description: "A dotted key, e.g. server.port." } },
  run(flags) {
    const cfg = configFromFlags(flags);
    const all = cfg.redacted();
    if (flags.key && !KEY_BY_NAME.has(flags.key)) throw unknownKey(flags.key);
    const data = flags.key ? { [flags.key]: all[flags.key] } : all;
    out(flags, data, () =>
      Object.entries(data)
        .flatMap(([k, v]) => (v ? [`${k} = ${JSON.stringify(v.value)}  (${v.source})`] : []))
        .join("\n"),
    );
  },
});

const configSet = command({
  description:
    "Write a key to the user config file (created with mode 0600). An empty value removes the key. `vault`, `data_dir`, `server.tls_cert` and `server.tls_key` are stored as absolute paths; the vault folder and the TLS files must exist.",
  runs: vaultConfigSet,
  examples: ["indx config set vault ~/Notes", "indx config set server.port 9000", 'indx config set embeddings.model ""   # remove the key'],
  args: {
    key: { type: "positional", required: true, description: "A dotted key, e.g. server.port." },
    value: { type: "positional", required: true, description: "The value; lists are comma-separated." },
  },
  run(flags) {
    // The key being set may be the one whose stored value no longer loads: it is what this command fixes.
    const cfg = configFromFlags(flags, {}, { repairing: flags.key });
    const input = parseInput(vaultConfigSet, { key: flags.key, value: flags.value });
    const value = LOCAL_PATH_KEYS.has(input.key) && typeof input.value === "string" ? absolutePath(input.key, input.value) : input.value;
    let change: ConfigChange;
    try {
      // The person at this machine may set what a remote caller may not (docs/decisions.md, "vault_config_set").
      change = setConfigValue(cfg, input.key, value, "local");
    } catch (err) {
      throw err instanceof IndxError && err.details?.reason === "unknown_key" ? unknownKey(input.key) : err;
    }
    out(flags, change, () => [vaultConfigSet.summary(change, input), ...change.warnings.map((w) => `warning: ${w.message}`)].join("\n"));
  },
});

const configPath = command({
  description: "Print the config file path, the vault and its data directory.",
  examples: ["indx config path"],
  args: {},
  run(flags) {
    const cfg = configFromFlags(flags);
    let vault: { root: string; dataDir: string } | null = null;
    try {
      vault = Vault.open(cfg);
    } catch {
      vault = null;
    }
    const data = { config: cfg.path, config_exists: cfg.fileExists, vault: vault?.root ?? null, data_dir: vault?.dataDir ?? null };
    out(
      flags,
      data,
      () =>
        `config:   ${data.config}${data.config_exists ? "" : " (not created yet)"}\nvault:    ${data.vault ?? "(none)"}\ndata dir: ${data.data_dir ?? "(none)"}`,
    );
  },
});

const revealApiKey = command({
  description: "Print the admin API key (created by `indx init` or the first `indx serve`). Treat it like a password.",
  examples: ['curl -H "Authorization: Bearer $(indx config reveal-api-key)" http://127.0.0.1:8787/v1/vault/status'],
  args: {},
  run(flags) {
    const key = configFromFlags(flags).str("server.api_key");
    if (!key) throw new IndxError("not_found", "No admin API key yet: run `indx serve` once to create it.");
    print(key);
  },
});

function unknownKey(key: string): IndxError {
  return new IndxError(
    "validation_failed",
    `Unknown config key: ${key}.${didYouMean(
      key,
      CONFIG_KEYS.map((k) => k.key),
    )} See indx config get.`,
    {
      key,
      known: CONFIG_KEYS.map((k) => k.key),
    },
  );
}

/** `config set vault .` means this folder: stored absolute, and a vault folder must exist (the error names the path tried). */
/** Keys naming a path on this machine, stored absolute: `indx serve` and a service may start in another folder. */
const LOCAL_PATH_KEYS: ReadonlySet<string> = new Set(["vault", "data_dir", "server.tls_cert", "server.tls_key"]);

function absolutePath(key: string, value: string): string {
  if (value === "") return value;
  const abs = absoluteAsTyped(value);
  if (key === "vault" && !(existsSync(abs) && statSync(abs).isDirectory()))
    throw new IndxError("not_found", `The vault folder ${abs} does not exist or is not a folder.`, { vault: basename(abs) });
  if (key.startsWith("server.tls_") && !(existsSync(abs) && statSync(abs).isFile()))
    throw new IndxError("not_found", `${key}: ${abs} does not exist or is not a file.`, { key });
  return abs;
}

export const configCommand: CommandDef = {
  meta: { description: "Read and write the user configuration (TOML)." },
  subCommands: { get: configGet, set: configSet, path: configPath, "reveal-api-key": revealApiKey },
};
