import { createHash, randomBytes } from "node:crypto";

/**
 * A hand-written OAuth client for the attack suite: every step is one raw request, so a test can
 * skip or bend any of them (the SDK's own client provider drives the honest flow in
 * test/e2e/oauth-browser.test.ts).
 */
export const verifierAndChallenge = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

export const REDIRECT = "http://127.0.0.1:9/callback";

export async function register(base: string, redirectUris = [REDIRECT], name = "Attack test client"): Promise<string> {
  const res = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris, token_endpoint_auth_method: "none" }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri?: string;
  response_type?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  scope?: string;
  resource?: string;
}

/** The consent page a GET /oauth/authorize shows: its hidden fields and the cookie that binds it to this "browser". */
export interface ConsentPage {
  status: number;
  html: string;
  location: string | null;
  requestId: string;
  csrf: string;
  cookie: string;
}

export async function openConsent(base: string, params: AuthorizeParams): Promise<ConsentPage> {
  const url = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: "manual" });
  const html = await res.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
  return {
    status: res.status,
    html,
    location: res.headers.get("location"),
    requestId: field("request_id"),
    csrf: field("csrf"),
    cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "",
  };
}

export async function submitConsent(
  base: string,
  page: Pick<ConsentPage, "requestId" | "csrf" | "cookie">,
  form: { owner_proof?: string; access?: string; decision?: string; read_folders?: string; write_folders?: string },
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = new URLSearchParams({ request_id: page.requestId, csrf: page.csrf, decision: "approve", ...form });
  return fetch(`${base}/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: page.cookie, origin: new URL(base).origin, ...headers },
    body,
  });
}

export async function tokenRequest(base: string, params: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Client registration, consent approved with `proof`, and the code from the redirect: the honest path. */
export async function authorizeCode(
  base: string,
  proof: string,
  opts: { clientId?: string; scope?: string; access?: string } = {},
): Promise<{ clientId: string; code: string; verifier: string }> {
  const clientId = opts.clientId ?? (await register(base));
  const { verifier, challenge } = verifierAndChallenge();
  const page = await openConsent(base, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st-1",
    scope: opts.scope ?? "vault:read vault:write",
    resource: `${base}/mcp`,
  });
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.location}`);
  const res = await submitConsent(base, page, { owner_proof: proof, access: opts.access ?? "write" });
  const location = res.headers.get("location");
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (res.status !== 303 || !code) throw new Error(`consent: ${res.status} ${location}`);
  return { clientId, code, verifier };
}

export async function exchange(base: string, a: { clientId: string; code: string; verifier: string }) {
  return tokenRequest(base, {
    grant_type: "authorization_code",
    code: a.code,
    client_id: a.clientId,
    redirect_uri: REDIRECT,
    code_verifier: a.verifier,
    resource: `${base}/mcp`,
  });
}

/** GET /v1/vault/status with a bearer token: the simplest guarded read. */
export async function statusWith(base: string, token: string): Promise<Response> {
  return fetch(`${base}/v1/vault/status`, { headers: { authorization: `Bearer ${token}` } });
}
