import { ALL_SCOPES } from "../auth/tokens.ts";
import { IndxError } from "../core/errors.ts";
import type { Scope } from "../ops/define.ts";
import { type GrantSpec, validateGrantSpec } from "../ops/grant.ts";
import { isMetadataUrl } from "./client-metadata.ts";
import { renderConsent, renderProblem } from "./consent-page.ts";
import { OAuthError } from "./errors.ts";
import type { Audit, GrantService } from "./grants.ts";
import { canonicalResource, vaultOfResource } from "./metadata.ts";
import { CHALLENGE_SYNTAX, hashSecret, newSecret, normalizeApprovalCode, sameSecret } from "./secrets.ts";
import type { OAuthClientRecord, OAuthStore } from "./store.ts";

/** Counts wrong owner proofs; the same shape as src/http/auth-throttle.ts, which serve passes in. */
export interface FailureThrottle {
  blockedFor(key: string): number;
  recordFailure(key: string): void;
}

export interface AuthorizeDeps {
  store: OAuthStore;
  grants: GrantService;
  resolveClient: (clientId: string) => Promise<OAuthClientRecord>;
  adminKey: () => string | null;
  audit: Audit;
  /** Wrong proofs per client address and proof, and (looser) per address (docs/decisions.md, "A valid token is never throttled"). */
  failures: { perProof: FailureThrottle; perAddress: FailureThrottle };
  /** Throws validation_failed for folders a grant may not hold (src/ops/grant.ts validateGrantSpec, or stricter). */
  checkFolders: (spec: GrantSpec) => void;
  /** Whether a named vault of this server is configured (its MCP endpoint is a resource a client may name). */
  isVault: (name: string) => boolean;
  /** A named vault's own store: `indx auth approve --vault <name>` leaves its codes there. */
  storeOf: (vault: string) => OAuthStore;
}

interface Pending {
  client: OAuthClientRecord;
  redirectUri: string;
  state: string | null;
  challenge: string;
  scopes: Scope[];
  resource: string;
  /** The named vault the resource is; null: the default vault. */
  vault: string | null;
  csrf: string;
  /** The value of the consent cookie this browser got with the page: a form from any other browser is refused. */
  binding: string;
  expires: number;
}

const PENDING_TTL_MS = 10 * 60_000;
const MAX_PENDING = 500;
const COOKIE = "indx_consent";
/** Room for two folder fields (3000 characters each, percent-encoded) besides the proof and the ids. */
const MAX_FORM_BYTES = 24 * 1024;

/** What a client asks for when it names no scope: reading and writing notes; the owner may still grant less. */
const DEFAULT_SCOPES: Scope[] = ["vault:read", "vault:write"];

/**
 * The authorization endpoint (OAuth 2.1 §4.1.1): checks the request, shows the consent page, and
 * on the owner's approval sends a one-time code to the client's registered redirect URI. Before
 * the client and its redirect URI are known good, nothing is redirected anywhere (no open redirect).
 */
export class Authorizer {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly d: AuthorizeDeps) {}

  async start(request: Request, base: string): Promise<Response> {
    const q = new URL(request.url).searchParams;
    for (const key of ["client_id", "redirect_uri", "response_type", "code_challenge", "code_challenge_method", "state", "scope", "resource"])
      if (q.getAll(key).length > 1) return problem(400, "Invalid request", `The parameter ${key} appears more than once.`);
    const clientId = q.get("client_id");
    if (!clientId) return problem(400, "Invalid request", "The request names no client_id.");
    let client: OAuthClientRecord;
    try {
      client = await this.d.resolveClient(clientId);
    } catch (err) {
      this.d.audit("auth.failed", { endpoint: "authorize", client_id: clientId.slice(0, 300), reason: "client_unknown" });
      return problem(400, "Unknown application", err instanceof OAuthError ? err.description : "The application could not be identified.");
    }
    const asked = q.get("redirect_uri") ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
    // Exact string match against what the client registered (OAuth 2.1 §2.3.1): no prefix, no normalising.
    if (!asked || !client.redirect_uris.includes(asked)) {
      this.d.audit("auth.failed", { endpoint: "authorize", client_id: client.client_id, reason: "redirect_uri_mismatch" });
      return problem(400, "Unregistered redirect address", "The address this request would send you back to is not one the application registered.");
    }
    const state = q.get("state");
    const back = (error: string, description: string) => {
      this.d.audit("auth.failed", { endpoint: "authorize", client_id: client.client_id, reason: error });
      return redirectTo(asked, { error, error_description: description, state, iss: base });
    };
    if (q.get("response_type") !== "code") return back("unsupported_response_type", "Only response_type=code is supported.");
    const challenge = q.get("code_challenge");
    if (!challenge) return back("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256.");
    if (q.get("code_challenge_method") !== "S256") return back("invalid_request", "Only the S256 code_challenge_method is supported.");
    if (!CHALLENGE_SYNTAX.test(challenge)) return back("invalid_request", "The code_challenge is not an S256 challenge.");
    const scopes = parseRequestedScopes(q.get("scope"));
    if (!scopes) return back("invalid_scope", `Known scopes: ${ALL_SCOPES.join(" ")}.`);
    const named = q.get("resource");
    const resource = named === null ? base : canonicalResource(named, base, this.d.isVault);
    if (!resource) return back("invalid_target", "The resource is not this server or one of its vaults.");

    this.sweep();
    // Past the cap the oldest waiting page goes (its owner reloads it), so a flood of requests cannot lock the owner out.
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value ?? "");
    const requestId = newSecret("");
    const p: Pending = {
      client,
      redirectUri: asked,
      state,
      challenge,
      scopes,
      resource,
      vault: vaultOfResource(resource, base),
      csrf: newSecret(""),
      binding: newSecret(""),
      expires: Date.now() + PENDING_TTL_MS,
    };
    this.pending.set(requestId, p);
    const secure = base.startsWith("https:") ? "; Secure" : "";
    return this.page(p, requestId, 200, undefined, {
      "set-cookie": `${COOKIE}=${p.binding}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=${PENDING_TTL_MS / 1000}${secure}`,
    });
  }

  async decide(request: Request, base: string, address: string): Promise<Response> {
    const type = request.headers.get("content-type") ?? "";
    if (!type.startsWith("application/x-www-form-urlencoded")) return problem(415, "Invalid request", "The consent form is sent as a form.");
    const form = await readForm(request);
    if (!form) return problem(413, "Invalid request", "The form is too large.");
    const requestId = form.get("request_id") ?? "";
    const p = this.pending.get(requestId);
    if (!p || p.expires <= Date.now()) return problem(400, "This request has expired", "The approval page was open too long or was already used.");
    if (!this.sameOrigin(request, base) || !sameSecret(form.get("csrf") ?? "", p.csrf) || !sameSecret(cookieOf(request, COOKIE) ?? "", p.binding)) {
      this.d.audit("auth.failed", { endpoint: "authorize", client_id: p.client.client_id, reason: "csrf", ...vaultOf(p) });
      return problem(403, "Request refused", "This form did not come from the approval page indx showed in this browser.");
    }
    if (form.get("decision") !== "approve") {
      this.pending.delete(requestId);
      this.d.audit("auth.failed", {
        endpoint: "authorize",
        client_id: p.client.client_id,
        client_name: p.client.client_name,
        reason: "access_denied",
        ...vaultOf(p),
      });
      return redirectTo(p.redirectUri, { error: "access_denied", error_description: "The owner denied access.", state: p.state, iss: base });
    }
    const typed = { read: form.get("read_folders") ?? "", write: form.get("write_folders") ?? "" };
    // The folders are checked before the owner's proof, so a typo does not spend a one-time code.
    const chosen = this.choose(p.scopes, form.get("access"), typed);
    if (typeof chosen === "string") return this.page(p, requestId, 400, undefined, {}, { typed, problem: chosen });
    const proof = form.get("owner_proof")?.trim() ?? "";
    if (!this.ownerProved(proof, p.vault)) {
      this.d.audit("auth.failed", { endpoint: "authorize", client_id: p.client.client_id, reason: "owner_proof", ...vaultOf(p) });
      const key = `${address}\0${hashSecret(proof)}`;
      const blocked = Math.max(this.d.failures.perProof.blockedFor(key), this.d.failures.perAddress.blockedFor(address));
      if (blocked)
        return this.page(
          p,
          requestId,
          429,
          `Too many wrong codes from here. Wait ${blocked} s; a valid code is still accepted.`,
          { "retry-after": String(blocked) },
          { typed },
        );
      this.d.failures.perProof.recordFailure(key);
      this.d.failures.perAddress.recordFailure(address);
      return this.page(p, requestId, 401, "That is not a valid approval code or admin token. Run indx auth approve for a new code.", {}, { typed });
    }
    this.pending.delete(requestId);
    const { scopes, folders } = chosen;
    const { code, grantId } = this.d.grants.issueCode({
      client: p.client,
      redirectUri: p.redirectUri,
      challenge: p.challenge,
      scopes,
      resource: p.resource,
      vault: p.vault,
      ...(folders ? { folders } : {}),
    });
    this.d.audit("auth.granted", {
      client_id: p.client.client_id,
      client_name: p.client.client_name,
      grant_id: grantId,
      scopes,
      ...(folders ? { folders } : {}),
      ...vaultOf(p),
    });
    return redirectTo(p.redirectUri, { code, state: p.state, iss: base });
  }

  /** What the owner granted, or why the folders they typed cannot be granted (shown on the page). */
  private choose(requested: Scope[], level: string | null, typed: TypedFolders): ChosenGrant | string {
    try {
      const chosen = chooseGrant(requested, level, typed);
      if (chosen.folders) this.d.checkFolders(chosen.folders);
      return chosen;
    } catch (err) {
      if (err instanceof IndxError && err.code === "validation_failed") return err.message;
      throw err;
    }
  }

  /**
   * The owner's proof: the admin token, or a one-time code from `indx auth approve` (spent here):
   * the default vault's codes approve for every vault of the server, a named vault's own
   * (`--vault <name>`) only for it (docs/decisions.md, "OAuth for named vaults").
   */
  private ownerProved(proof: string, vault: string | null): boolean {
    if (!proof || proof.length > 200) return false;
    const admin = this.d.adminKey();
    if (admin && sameSecret(proof, admin)) return true;
    const hash = hashSecret(normalizeApprovalCode(proof));
    return this.d.store.spendApproval(hash) || (vault !== null && this.d.storeOf(vault).spendApproval(hash));
  }

  /**
   * A browser names where a form came from; one from another site is refused even with the right
   * fields. Origin "null" (a privacy setting or referrer policy hides it) proves nothing either way:
   * then Sec-Fetch-Site, when sent, must say same-origin.
   */
  private sameOrigin(request: Request, base: string): boolean {
    const site = request.headers.get("sec-fetch-site");
    if (site !== null && site !== "same-origin") return false;
    const origin = request.headers.get("origin");
    if (origin === null || origin === "null") return true;
    return origin === new URL(base).origin || origin === new URL(request.url).origin;
  }

  private page(
    p: Pending,
    requestId: string,
    status: number,
    error?: string,
    headers: Record<string, string> = {},
    folders?: { typed: TypedFolders; problem?: string },
  ): Response {
    const html = renderConsent({
      folders: folders?.typed ?? { read: "", write: "" },
      foldersProblem: folders?.problem,
      clientName: p.client.client_name,
      vault: p.vault,
      clientUrl: isMetadataUrl(p.client.client_id) ? p.client.client_id : null,
      redirectHost: hostOf(p.redirectUri),
      requested: p.scopes,
      requestId,
      csrf: p.csrf,
      error,
    });
    return new Response(html, { status, headers: { ...pageHeaders(formTarget(p.redirectUri)), ...headers } });
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, v] of this.pending) if (v.expires <= now) this.pending.delete(k);
  }
}

/** The folder fields of the consent form as typed: one glob per line or comma-separated. */
export interface TypedFolders {
  read: string;
  write: string;
}

export interface ChosenGrant {
  scopes: Scope[];
  /** Null: the whole vault. */
  folders: GrantSpec | null;
}

/**
 * What a consent grants: the scopes the client asked, capped at the level the owner picked, and
 * the folders the owner limited it to, in the meaning bearer tokens' globs have
 * (docs/permissions.md). Empty fields: the whole vault. Throws validation_failed for a glob a
 * grant may not hold, and for write folders on a grant that cannot write (they would widen what
 * it reads, docs/permissions.md, and grant nothing else).
 */
export function chooseGrant(requested: Scope[], level: string | null, typed: TypedFolders = { read: "", write: "" }): ChosenGrant {
  const cap: Scope[] = level === "admin" ? [...ALL_SCOPES] : level === "write" ? ["vault:read", "vault:write"] : ["vault:read"];
  const granted = requested.filter((s) => cap.includes(s));
  const scopes: Scope[] = granted.length > 0 ? granted : ["vault:read"];
  const read = splitGlobs(typed.read);
  const write = splitGlobs(typed.write);
  if (write.length > 0 && !scopes.includes("vault:write"))
    throw new IndxError("validation_failed", "Folders it may write need the Read and write access level.", { reason: "write_folders_without_write" });
  const spec: GrantSpec = { ...(read.length ? { read } : {}), ...(write.length ? { write } : {}) };
  return { scopes, folders: read.length || write.length ? validateGrantSpec(spec) : null };
}

/** Globs typed one per line or separated by commas; a comma inside `{a,b}` belongs to its glob. */
export function splitGlobs(raw: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of raw) {
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
    if (ch === "\n" || ch === "\r" || (ch === "," && depth === 0)) {
      out.push(current);
      current = "";
      depth = 0;
    } else current += ch;
  }
  out.push(current);
  return [...new Set(out.map((g) => g.trim()).filter(Boolean))];
}

/** The scopes of an authorization request; offline_access (refresh tokens are always issued) is dropped; null if one is unknown. */
export function parseRequestedScopes(raw: string | null): Scope[] | null {
  const names = (raw ?? "").split(" ").filter((s) => s && s !== "offline_access");
  if (names.length === 0) return [...DEFAULT_SCOPES];
  if (!names.every((n): n is Scope => (ALL_SCOPES as readonly string[]).includes(n))) return null;
  return [...new Set(names)];
}

/** The audit field naming the vault a consent is for (docs/decisions.md, "OAuth for named vaults"); nothing for the default vault. */
function vaultOf(p: Pending): { vault?: string } {
  return p.vault === null ? {} : { vault: p.vault };
}

function redirectTo(uri: string, params: Record<string, string | null>): Response {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return new Response(null, { status: 303, headers: { location: url.href, "cache-control": "no-store", "referrer-policy": "no-referrer" } });
}

function problem(status: number, title: string, detail: string): Response {
  return new Response(renderProblem(title, detail), { status, headers: pageHeaders(null) });
}

/** Only the page's own style; forms go only to this server and, after it, the client's redirect. */
function pageHeaders(redirectOrigin: string | null): Record<string, string> {
  const formAction = ["'self'", redirectOrigin].filter(Boolean).join(" ");
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    // same-origin: the form's POST carries this page's Origin; nothing leaks to other sites.
    "referrer-policy": "same-origin",
  };
}

/** Where a form's redirect may go: the origin of an http(s) redirect URI, or a native app's scheme. */
function formTarget(uri: string): string {
  const url = new URL(uri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
}

function hostOf(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol.replace(/:$/, "");
}

function cookieOf(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return null;
}

async function readForm(request: Request): Promise<URLSearchParams | null> {
  const text = await readBounded(request, MAX_FORM_BYTES);
  return text === null ? null : new URLSearchParams(text);
}

/** A request body up to `max` bytes, or null past it. */
export async function readBounded(request: Request, max: number): Promise<string | null> {
  if (Number(request.headers.get("content-length") ?? "0") > max) return null;
  const reader = request.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
