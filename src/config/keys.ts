import { isIP } from "node:net";
import { globScopeProblem } from "../core/glob-scope.ts";
import { priceEntryProblem } from "./prices.ts";

/**
 * Every configuration key indx understands, in one table: its TOML location, its environment
 * variable, its type and default. Loading, `config get|set`, vault_config_get and the README
 * reference all read this table, so a key is declared exactly once.
 */
export type KeyType = "string" | "int" | "number" | "bool" | "list";

export interface ConfigKey {
  key: string; // dotted TOML path, e.g. "server.port"
  env?: string;
  type: KeyType;
  default: unknown;
  description: string;
  secret?: boolean; // shown only as set/unset
  /** The only values a string key takes (checked when it is set through indx). */
  choices?: readonly string[];
  /**
   * Which of the environment and the config file wins when both set the key (flags win over
   * both). "env" (the default) lets an operator override or lock down a setting;
   * "file" is for the AI tuning knobs, which the user's file tunes over a shared environment
   * (docs/decisions.md, AI settings: which source wins).
   */
  precedence?: "env" | "file";
  /** Why a list item is refused, or null: checked wherever the key is read or set. */
  itemProblem?: (item: string) => string | null;
  /** Why a string value is refused, or null: checked wherever the key is read or set. */
  valueProblem?: (value: string) => string | null;
}

/** A CORS origin is named one by one, scheme and host (docs/contracts.md: no wildcard). */
function originProblem(item: string): string | null {
  if (item.includes("*")) return "is a wildcard: list each origin (https://app.example) one by one";
  if (!/^https?:\/\/[^/\s]+$/.test(item)) return "is not an origin: write scheme and host, with a port if any (https://app.example:8443), no path";
  return null;
}

/** Loopback host names, as a URL's hostname spells them. */
function isLoopbackName(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * The address people and clients reach the server at (docs/decisions.md, "Public deployment"):
 * scheme and host only, so what OAuth metadata and redirects advertise cannot be bent by a path,
 * a query, credentials or a backslash. Plain http only on loopback (the MCP authorization spec
 * wants HTTPS everywhere else).
 */
function publicUrlProblem(value: string): string | null {
  if (!/^https?:\/\/[^/?#@\\\s]+\/?$/i.test(value))
    return "is not a public URL: write scheme and host, with a port if any (https://notes.example.com), no path, query or credentials";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol === "http:" && !isLoopbackName(url.hostname))
    return "uses http on a non-loopback host: clients refuse OAuth over plain http, use https (TLS here or at a proxy)";
  return null;
}

/** A trusted proxy is named by its address or a CIDR block, v4 or v6 (no host names: a name can change under you). */
function proxyProblem(item: string): string | null {
  const [address = "", prefix, extra] = item.split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return "is not an IP address or CIDR block (e.g. 10.0.0.0/8, 192.168.1.5, fd00::/8)";
  if (prefix === undefined) return null;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  if (bits < 0 || bits > (family === 4 ? 32 : 128)) return `has a bad prefix length (0-${family === 4 ? 32 : 128})`;
  return null;
}

/**
 * An allowed Host is a name or a bracketed IPv6 literal, compared without its port
 * (src/http/guard.ts): a scheme, a port or a path would never match a request.
 */
function hostProblem(item: string): string | null {
  if (/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$/.test(item)) return null;
  return "is not a host name: write the name alone (notes.example, or [::1]), no scheme, port or path";
}

export const CONFIG_KEYS: readonly ConfigKey[] = [
  { key: "vault", env: "INDX_VAULT", type: "string", default: null, description: "Path of the vault folder." },
  {
    key: "data_dir",
    env: "INDX_DATA_DIR",
    type: "string",
    default: null,
    description: "Folder for the index and state of this vault (default: $XDG_DATA_HOME/indx/vaults/<vault-id>).",
  },
  { key: "server.host", env: "INDX_HOST", type: "string", default: "127.0.0.1", description: "Bind address." },
  { key: "server.port", env: "INDX_PORT", type: "int", default: 8787, description: "Bind port (0 picks a free one)." },
  {
    key: "server.api_key",
    env: "INDX_API_KEY",
    type: "string",
    default: null,
    secret: true,
    description: "Admin bearer token. Created on the first `indx serve`; print it with `indx config reveal-api-key`.",
  },
  {
    key: "server.cors_origins",
    env: "INDX_CORS_ORIGINS",
    type: "list",
    default: [],
    description: "Origins allowed by CORS (explicit list, no wildcard). Empty: CORS off.",
    itemProblem: originProblem,
  },
  {
    key: "server.allowed_hosts",
    env: "INDX_ALLOWED_HOSTS",
    type: "list",
    default: [],
    itemProblem: hostProblem,
    description: "Extra Host header names accepted besides the bound address, localhost and 127.0.0.1.",
  },
  {
    key: "server.auth",
    env: "INDX_AUTH",
    type: "bool",
    default: true,
    description: "Require bearer tokens on /v1 and /mcp. Turning it off is allowed only on loopback.",
  },
  {
    key: "server.public_url",
    env: "INDX_PUBLIC_URL",
    type: "string",
    default: null,
    description:
      "The URL clients reach this server at (https://notes.example.com), as OAuth metadata and redirects advertise it; its host is accepted in the Host header. Unset: taken from each request.",
    valueProblem: publicUrlProblem,
  },
  {
    key: "server.trusted_proxies",
    env: "INDX_TRUSTED_PROXIES",
    type: "list",
    default: [],
    description:
      "Addresses or CIDR blocks of reverse proxies in front of indx: only requests from these have their Forwarded / X-Forwarded-For / -Proto / -Host headers believed (the client address for rate limits). Empty: those headers are ignored.",
    itemProblem: proxyProblem,
  },
  {
    key: "server.tls_cert",
    env: "INDX_TLS_CERT",
    type: "string",
    default: null,
    description: "PEM certificate file (full chain) for HTTPS; with server.tls_key, indx serves https and picks up a renewed pair without a restart.",
  },
  {
    key: "server.tls_key",
    env: "INDX_TLS_KEY",
    type: "string",
    default: null,
    description: "PEM private key file of server.tls_cert.",
  },
  {
    key: "server.allow_insecure_bind",
    env: "INDX_ALLOW_INSECURE_BIND",
    type: "bool",
    default: false,
    description:
      "Serve plain http on a non-loopback address with no trusted proxy in front (tokens then cross the network in clear). Off: such a bind is refused; `indx serve --insecure-bind` forces it once.",
  },
  {
    key: "server.rate_limit_per_second",
    env: "INDX_RATE_LIMIT_PER_SECOND",
    type: "int",
    default: 50,
    description:
      "Requests per second each token may make on /v1, /mcp and /metrics, and each client address on the OAuth endpoints (429 rate_limited beyond it). 0: no limit.",
  },
  {
    key: "server.rate_limit_burst",
    env: "INDX_RATE_LIMIT_BURST",
    type: "int",
    default: 100,
    description: "How many requests a token may make at once before server.rate_limit_per_second applies.",
  },
  {
    key: "server.auth_failure_limit",
    env: "INDX_AUTH_FAILURE_LIMIT",
    type: "int",
    default: 10,
    description:
      "Times one client may send the same wrong bearer token within server.auth_failure_window_seconds before that token gets 429s (5× as many different wrong tokens per client). A valid token is never throttled. 0: no limit.",
  },
  {
    key: "server.auth_failure_window_seconds",
    env: "INDX_AUTH_FAILURE_WINDOW_SECONDS",
    type: "int",
    default: 60,
    description: "The window of server.auth_failure_limit: a refused address may try again once its oldest failure is this old.",
  },
  {
    key: "server.oauth",
    env: "INDX_OAUTH",
    type: "bool",
    default: true,
    description:
      "Serve the OAuth 2.1 authorization server (claude.ai custom connectors and other remote MCP clients); the owner approves each client. Static bearer tokens work either way.",
  },
  {
    key: "server.oauth_access_token_seconds",
    env: "INDX_OAUTH_ACCESS_TOKEN_SECONDS",
    type: "int",
    default: 3600,
    description: "How long an OAuth access token lives; the client renews it with its refresh token.",
  },
  {
    key: "server.oauth_refresh_token_days",
    env: "INDX_OAUTH_REFRESH_TOKEN_DAYS",
    type: "int",
    default: 30,
    description: "How long an OAuth grant stays usable without being refreshed (each refresh issues a new refresh token).",
  },
  {
    key: "server.read_workers",
    env: "INDX_READ_WORKERS",
    type: "int",
    default: null,
    description: "Threads of indx serve that answer reads (search, note reads, links, tags). Unset: one per CPU core; 0: reads run on the request thread.",
  },
  {
    key: "server.read_nice",
    env: "INDX_READ_NICE",
    type: "int",
    default: 0,
    description:
      "How many nice levels below the request thread the reader threads run (Linux), so writes go first when the cores are busy (reads then also yield to other programs); 0: the same priority, at most 19.",
  },
  {
    key: "index.exclude",
    env: "INDX_EXCLUDE",
    type: "list",
    default: [],
    itemProblem: globScopeProblem,
    description: "Extra vault-relative globs to leave out of the index (hidden files, .obsidian, .git, node_modules and build folders are always out).",
  },
  {
    key: "index.obsidian_excluded",
    env: "INDX_OBSIDIAN_EXCLUDED",
    type: "bool",
    default: false,
    description:
      'Leave Obsidian\'s own "Excluded files" (userIgnoreFilters in .obsidian/app.json) out of the index too, as index.exclude does: not searched, listed or read (docs/permissions.md).',
  },
  {
    key: "index.max_note_bytes",
    type: "int",
    default: 5 * 1024 * 1024,
    description: "Notes larger than this are listed and readable but not parsed, chunked or searched.",
  },
  {
    key: "index.documents",
    env: "INDX_DOCUMENTS",
    type: "list",
    default: ["pdf", "docx"],
    description:
      "Attachment formats whose text is extracted and searched (pdf, docx); none (or an empty list): they are plain attachments (docs/documents.md).",
    itemProblem: (item) =>
      ["pdf", "docx", "none"].includes(item.trim().toLowerCase().replace(/^\./, ""))
        ? null
        : "is not a document format indx reads (pdf, docx; none for no text)",
  },
  {
    key: "index.max_document_bytes",
    type: "int",
    default: 64 * 1024 * 1024,
    description: "PDF and DOCX files larger than this are listed as attachments, their text not extracted.",
  },
  {
    key: "index.max_document_pages",
    type: "int",
    default: 2000,
    description: "Pages of a PDF whose text is extracted; the pages past this are counted, not searched.",
  },
  {
    key: "index.debounce_ms",
    type: "int",
    default: 250,
    description: "How long the watcher waits for a burst of file changes to settle before re-indexing.",
  },
  {
    key: "capture.folder",
    env: "INDX_CAPTURE_FOLDER",
    type: "string",
    default: "Inbox",
    description: "Folder note_capture saves into when no folder is given (created when missing).",
  },
  {
    key: "properties.required",
    type: "list",
    default: [],
    description: "Frontmatter keys every note must have: vault_validate_frontmatter lists the notes without them.",
  },
  {
    key: "retrieval.max_note_bytes",
    type: "int",
    default: 2 * 1024 * 1024,
    description: "note_read refuses larger notes unless allow_large is set.",
  },
  {
    key: "retrieval.max_attachment_bytes",
    type: "int",
    default: 10 * 1024 * 1024,
    description: "Attachment downloads larger than this need allow_large.",
  },
  {
    key: "writes.max_attachment_bytes",
    env: "INDX_MAX_ATTACHMENT_BYTES",
    type: "int",
    default: 25 * 1024 * 1024,
    description: "attachment_write refuses larger files (413 payload_too_large).",
  },
  { key: "search.default_limit", type: "int", default: 10, description: "Results per page when no limit is given." },
  {
    key: "mcp.tools",
    env: "INDX_MCP_TOOLS",
    type: "list",
    default: ["all"],
    description:
      "The MCP tools listed to agents: `all`, the `core` profile (search, read, write, patch, list, backlinks) and/or tool names; the session's scopes still apply (`indx mcp --tools core`).",
    itemProblem: (item) => (/^[a-z][a-z_]*$/.test(item) ? null : "is not a profile (all, core) or a tool name"),
  },
  {
    key: "links.typed_keys",
    env: "INDX_LINKS_TYPED_KEYS",
    type: "list",
    default: ["*"],
    description: "Frontmatter properties whose links are typed relations named by the property (`rel`); `*` means every property, an empty list none.",
  },
  {
    key: "embeddings.provider",
    env: "INDX_EMBEDDINGS_PROVIDER",
    type: "string",
    default: null,
    choices: ["ollama", "openai"],
    description: "ollama | openai. Unset: no embeddings (lexical search only).",
  },
  { key: "embeddings.model", env: "INDX_EMBEDDINGS_MODEL", type: "string", default: null, description: "Embedding model name." },
  {
    key: "embeddings.ollama_url",
    env: "INDX_OLLAMA_URL",
    type: "string",
    default: "http://127.0.0.1:11434",
    description: "Base URL of the Ollama server.",
  },
  {
    key: "embeddings.openai_base_url",
    env: "INDX_OPENAI_BASE_URL",
    type: "string",
    default: null,
    description: "Base URL of an OpenAI-compatible endpoint.",
  },
  {
    key: "embeddings.openai_api_key",
    env: "INDX_OPENAI_API_KEY",
    type: "string",
    default: null,
    secret: true,
    description: "API key of the OpenAI-compatible endpoint.",
  },
  {
    key: "embeddings.batch_size",
    env: "INDX_EMBEDDINGS_BATCH_SIZE",
    type: "int",
    default: 64,
    description: "Chunks sent per embedding request (halved automatically when the server refuses a batch).",
  },
  {
    key: "embeddings.concurrency",
    env: "INDX_EMBEDDINGS_CONCURRENCY",
    type: "int",
    default: 2,
    description: "Embedding requests in flight at once.",
  },
  {
    key: "embeddings.timeout_ms",
    env: "INDX_EMBEDDINGS_TIMEOUT_MS",
    type: "int",
    default: 60000,
    description: "Timeout of one embedding request (a search query's embedding gets at most 10 s).",
  },
  {
    key: "ai.enabled",
    env: "INDX_AI_ENABLED",
    type: "bool",
    default: true,
    description: "false turns the AI runtime off whatever else is set: no AI operation is offered and search does not rerank.",
  },
  {
    key: "ai.provider",
    env: "INDX_AI_PROVIDER",
    type: "string",
    default: null,
    choices: ["ollama", "openai", "vercel-ai-gateway"],
    description: "Chat model provider: ollama | openai | vercel-ai-gateway. Unset: the embeddings provider.",
  },
  {
    key: "ai.model",
    env: "INDX_AI_MODEL",
    type: "string",
    default: null,
    description: "Chat model name (e.g. llama3.2, gpt-4o-mini, anthropic/claude-haiku-4-5). Unset: no chat model.",
  },
  {
    key: "ai.gateway_url",
    env: "INDX_AI_GATEWAY_URL",
    type: "string",
    default: "https://ai-gateway.vercel.sh/v1",
    description: "OpenAI-compatible base URL of the Vercel AI Gateway.",
  },
  {
    key: "ai.gateway_key",
    env: "INDX_AI_GATEWAY_KEY",
    type: "string",
    default: null,
    secret: true,
    description: "API key of the Vercel AI Gateway (provider vercel-ai-gateway).",
  },
  {
    key: "ai.max_input_tokens",
    env: "INDX_AI_MAX_INPUT_TOKENS",
    type: "int",
    default: 64000,
    precedence: "file",
    description: "Hard cap on the prompt of one AI call, in tokens.",
  },
  {
    key: "ai.max_output_tokens",
    env: "INDX_AI_MAX_OUTPUT_TOKENS",
    type: "int",
    default: 2048,
    precedence: "file",
    description: "Hard cap on the reply of one AI call, in tokens (a request may ask for less).",
  },
  {
    key: "ai.temperature",
    env: "INDX_AI_TEMPERATURE",
    type: "number",
    default: 0,
    precedence: "file",
    description: "Sampling temperature of the chat model (0: as deterministic as the provider allows).",
  },
  {
    key: "ai.allow_globs",
    env: "INDX_AI_ALLOW_GLOBS",
    type: "list",
    default: [],
    precedence: "file",
    itemProblem: globScopeProblem,
    description: "Vault-relative globs of the notes AI operations may read. Empty: all notes.",
  },
  {
    key: "ai.deny_globs",
    env: "INDX_AI_DENY_GLOBS",
    type: "list",
    default: [],
    precedence: "file",
    itemProblem: globScopeProblem,
    description: "Globs of notes no AI operation may read or send to a provider; they win over ai.allow_globs.",
  },
  {
    key: "ai.daily_cost_usd",
    env: "INDX_AI_DAILY_COST_USD",
    type: "number",
    default: null,
    description: "Spending ceiling per UTC day in USD; beyond it AI calls fail with ai_quota_exceeded. Unset: no ceiling.",
  },
  {
    key: "ai.prices",
    env: "INDX_AI_PRICES",
    type: "list",
    default: [],
    itemProblem: priceEntryProblem,
    description: 'Chat model prices that add to or replace the built-in table, as "model=input/output" in USD per million tokens (e.g. "my-model=0.5/1.5").',
  },
  { key: "ai.cache.enabled", env: "INDX_AI_CACHE", type: "bool", default: true, description: "Cache AI results (on | off)." },
  { key: "ai.cache.ttl_hours", type: "number", default: 24, description: "How long a cached AI result is served." },
  {
    key: "ai.timeout_ms",
    env: "INDX_AI_TIMEOUT_MS",
    type: "int",
    default: 30000,
    description: "Timeout of one chat model call: the whole call when it is not streamed; the longest silence between two pieces of a stream.",
  },
  {
    key: "ai.ollama_num_ctx_max",
    env: "INDX_OLLAMA_NUM_CTX_MAX",
    type: "int",
    default: 16384,
    description:
      "The largest context window (num_ctx) indx asks Ollama for; each call asks for what its prompt and reply need, and a prompt that would not fit is refused or split.",
  },
  {
    key: "ai.test_record",
    env: "AI_TEST_RECORD",
    type: "bool",
    default: false,
    description: "Tests: record every chat exchange as a JSON fixture in ai.fixtures_dir (the provider is still called).",
  },
  {
    key: "ai.test_replay",
    env: "AI_TEST_REPLAY",
    type: "bool",
    default: false,
    description: "Tests: answer chat calls from the fixtures in ai.fixtures_dir, never calling a provider; a missing fixture is ai_unavailable.",
  },
  {
    key: "ai.fixtures_dir",
    env: "INDX_AI_FIXTURES_DIR",
    type: "string",
    default: null,
    description: "Folder of the chat fixtures of ai.test_record / ai.test_replay (default: <data dir>/ai-fixtures).",
  },
  {
    key: "search.rerank",
    env: "INDX_SEARCH_RERANK",
    type: "bool",
    default: false,
    description: "Rerank hybrid results with the chat model by default (a request can override it with rerank).",
  },
  {
    key: "search.vector_weight",
    env: "INDX_SEARCH_VECTOR_WEIGHT",
    type: "string",
    default: "auto",
    description: "How much the vector list counts in auto and hybrid search (lexical: 1). auto: measured on the vault (vault_status); 0: auto stays lexical.",
  },
  {
    key: "search.rerank_candidates",
    type: "int",
    default: 20,
    description: "How many fused results the chat model reranks (at most 50).",
  },
  {
    key: "search.rerank_timeout_ms",
    type: "int",
    default: 15000,
    description: "Reranking gives up after this long and keeps the fused order, with a warning.",
  },
];

export const KEY_BY_NAME = new Map(CONFIG_KEYS.map((k) => [k.key, k]));

/** Keys whose values are local paths: shown as set/unset outside the local `indx config` commands, and set only there. */
export const PATH_KEYS: ReadonlySet<string> = new Set(["vault", "data_dir", "ai.fixtures_dir", "server.tls_cert", "server.tls_key"]);
