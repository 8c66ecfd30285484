import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TokenStore } from "../../src/auth/tokens.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { hashSecret, newApprovalCode } from "../../src/oauth/secrets.ts";
import { OAuthStore } from "../../src/oauth/store.ts";
import { authorizeCode, exchange, openConsent, REDIRECT, register, statusWith, submitConsent, tokenRequest, verifierAndChallenge } from "../support/oauth.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The attack suite (issue 32): each way a client, a page or a thief could get or keep a token it
 * should not have, against the real server on 127.0.0.1. None may yield a working token.
 */
let sb: Sandbox;
let server: RunningServer;
let base: string;
let admin: string;

beforeAll(async () => {
  sb = sandbox({ "Note.md": "# Note\n" });
  server = await startServer(sb.context({ "server.read_workers": 0, "server.rate_limit_burst": 1000 }), {
    host: "127.0.0.1",
    port: 0,
    watch: false,
    notice: () => {},
  });
  base = server.url;
  admin = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

const approvalCode = () => {
  const code = newApprovalCode();
  new OAuthStore(sb.dataDir).addApproval(hashSecret(code), 600_000);
  return code;
};

const authParams = async (over: Record<string, string | undefined> = {}) => {
  const { verifier, challenge } = verifierAndChallenge();
  const clientId = over.client_id ?? (await register(base));
  return {
    verifier,
    params: {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
      scope: "vault:read",
      ...over,
    },
  };
};

const errorOf = (location: string | null) => (location ? new URL(location).searchParams.get("error") : null);

describe("the honest path works (so the refusals below mean something)", () => {
  test("consent with the admin token, exchange, then /v1 and /mcp accept the access token", async () => {
    const got = await exchange(base, await authorizeCode(base, admin));
    expect(got.status).toBe(200);
    expect(got.body.token_type).toBe("Bearer");
    expect(got.body.scope).toBe("vault:read vault:write");
    expect((await statusWith(base, got.body.access_token)).status).toBe(200);
  });

  test("a static bearer token keeps working beside OAuth", async () => {
    const reader = new TokenStore(sb.dataDir).create("reader", ["vault:read"]).token;
    expect((await statusWith(base, reader)).status).toBe(200);
  });

  test("a 401 on /mcp and /v1 names the protected-resource metadata", async () => {
    for (const path of ["/mcp", "/v1/vault/status"]) {
      const res = await fetch(`${base}${path}`, { method: path === "/mcp" ? "POST" : "GET" });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource"`);
    }
    const prm = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm.resource).toBe(base);
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.issuer).toBe(base);
  });
});

describe("PKCE", () => {
  test("an authorization request without code_challenge gets no consent page, only an error back", async () => {
    const { params } = await authParams({ code_challenge: undefined, code_challenge_method: undefined });
    const page = await openConsent(base, params);
    expect(page.status).toBe(303);
    expect(errorOf(page.location)).toBe("invalid_request");
    expect(page.requestId).toBe("");
  });

  test("the plain method (a downgrade) is refused, and so is a verifier that is the challenge itself", async () => {
    const { params } = await authParams({ code_challenge_method: "plain" });
    const page = await openConsent(base, params);
    expect(errorOf(page.location)).toBe("invalid_request");

    const a = await authorizeCode(base, admin);
    const { challenge } = verifierAndChallenge();
    const downgraded = await exchange(base, { ...a, verifier: challenge });
    expect(downgraded.body.error).toBe("invalid_grant");
    const missing = await tokenRequest(base, { grant_type: "authorization_code", code: a.code, client_id: a.clientId, redirect_uri: REDIRECT });
    expect(missing.body.error).toBe("invalid_request");
  });
});

describe("redirect URIs", () => {
  test("an unregistered or look-alike redirect URI gets an error page, never a redirect (no open redirect)", async () => {
    for (const redirect of ["https://evil.example/callback", `${REDIRECT}/x`, `${REDIRECT}?next=https://evil.example`, "http://127.0.0.1:9/Callback"]) {
      const { params } = await authParams({ redirect_uri: redirect });
      const page = await openConsent(base, params);
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.html).not.toContain("evil.example");
    }
    // Registration refuses a javascript: URI outright.
    const res = await fetch(`${base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["javascript:alert(1)"] }),
    });
    expect(res.status).toBe(400);
  });

  test("a code is refused at the token endpoint with another redirect_uri than the authorization's", async () => {
    const clientId = await register(base, [REDIRECT, "http://127.0.0.1:9/other"]);
    const a = await authorizeCode(base, admin, { clientId });
    const got = await tokenRequest(base, {
      grant_type: "authorization_code",
      code: a.code,
      client_id: a.clientId,
      redirect_uri: "http://127.0.0.1:9/other",
      code_verifier: a.verifier,
    });
    expect(got.body.error).toBe("invalid_grant");
  });
});

describe("codes", () => {
  test("a replayed code is refused, and the tokens its first use got stop working", async () => {
    const a = await authorizeCode(base, admin);
    const first = await exchange(base, a);
    expect((await statusWith(base, first.body.access_token)).status).toBe(200);
    const second = await exchange(base, a);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe("invalid_grant");
    expect((await statusWith(base, first.body.access_token)).status).toBe(401);
    const refreshed = await tokenRequest(base, { grant_type: "refresh_token", refresh_token: first.body.refresh_token, client_id: a.clientId });
    expect(refreshed.body.error).toBe("invalid_grant");
  });

  test("a code is refused when another client presents it", async () => {
    const a = await authorizeCode(base, admin);
    const other = await register(base);
    expect((await exchange(base, { ...a, clientId: other })).body.error).toBe("invalid_grant");
  });
});

describe("refresh tokens", () => {
  test("rotation: a refresh token works once; its reuse revokes the whole family", async () => {
    const a = await authorizeCode(base, admin);
    const first = await exchange(base, a);
    const second = await tokenRequest(base, { grant_type: "refresh_token", refresh_token: first.body.refresh_token, client_id: a.clientId });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await statusWith(base, second.body.access_token)).status).toBe(200);

    const replay = await tokenRequest(base, { grant_type: "refresh_token", refresh_token: first.body.refresh_token, client_id: a.clientId });
    expect(replay.body.error).toBe("invalid_grant");
    // The thief's replay took down the legitimate holder's tokens too: the family is revoked.
    expect((await statusWith(base, second.body.access_token)).status).toBe(401);
    const next = await tokenRequest(base, { grant_type: "refresh_token", refresh_token: second.body.refresh_token, client_id: a.clientId });
    expect(next.body.error).toBe("invalid_grant");
  });

  test("a refresh cannot widen the scopes the owner granted", async () => {
    const a = await authorizeCode(base, admin, { access: "read" });
    const got = await exchange(base, a);
    expect(got.body.scope).toBe("vault:read");
    const wider = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: got.body.refresh_token,
      client_id: a.clientId,
      scope: "vault:read vault:write",
    });
    expect(wider.body.error).toBe("invalid_scope");
  });

  test("a narrowed refresh gives an access token with only those scopes, kept in the file (a restart does not widen it)", async () => {
    const a = await authorizeCode(base, admin);
    const got = await exchange(base, a);
    const narrow = await tokenRequest(base, { grant_type: "refresh_token", refresh_token: got.body.refresh_token, client_id: a.clientId, scope: "vault:read" });
    expect(narrow.body.scope).toBe("vault:read");
    const reindex = await fetch(`${base}/v1/vault/reindex`, {
      method: "POST",
      headers: { authorization: `Bearer ${narrow.body.access_token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(reindex.status).toBe(403);
    expect(new OAuthStore(sb.dataDir).accessGrant(hashSecret(narrow.body.access_token))?.scopes).toEqual(["vault:read"]);
  });
});

describe("resources (RFC 8707)", () => {
  test("a token for another resource is never minted", async () => {
    const { params } = await authParams({ resource: "https://other.example/mcp" });
    expect(errorOf((await openConsent(base, params)).location)).toBe("invalid_target");
    const a = await authorizeCode(base, admin);
    const got = await tokenRequest(base, {
      grant_type: "authorization_code",
      code: a.code,
      client_id: a.clientId,
      redirect_uri: REDIRECT,
      code_verifier: a.verifier,
      resource: "https://other.example/mcp",
    });
    expect(got.body.error).toBe("invalid_target");
  });

  test("a token minted for this server under one name is refused under another", async () => {
    const got = await exchange(base, await authorizeCode(base, admin));
    expect((await statusWith(base, got.body.access_token)).status).toBe(200);
    const elsewhere = base.replace("127.0.0.1", "localhost");
    const res = await statusWith(elsewhere, got.body.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("consent", () => {
  test("approval without the owner's proof, or with a wrong one, issues no code", async () => {
    for (const proof of ["", "WRONG-CODE-0000-0000", `${admin}x`]) {
      const { params } = await authParams();
      const page = await openConsent(base, params);
      const res = await submitConsent(base, page, { owner_proof: proof });
      expect(res.status).toBe(401);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).toContain("not a valid approval code");
    }
  });

  test("an approval code from indx auth approve works once", async () => {
    const code = approvalCode();
    const { params } = await authParams();
    const ok = await submitConsent(base, await openConsent(base, params), { owner_proof: code.toLowerCase() });
    expect(ok.status).toBe(303);
    expect(new URL(ok.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();
    const again = await submitConsent(base, await openConsent(base, (await authParams()).params), { owner_proof: code });
    expect(again.status).toBe(401);
  });

  test("the owner may grant less than asked: read only", async () => {
    const a = await authorizeCode(base, admin, { scope: "vault:read vault:write vault:admin", access: "read" });
    const got = await exchange(base, a);
    expect(got.body.scope).toBe("vault:read");
    const write = await fetch(`${base}/v1/vault/reindex`, {
      method: "POST",
      headers: { authorization: `Bearer ${got.body.access_token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(write.status).toBe(403);
    expect(write.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(write.headers.get("www-authenticate")).toMatch(/scope="vault:(write|admin)"/);
    expect((await statusWith(base, got.body.access_token)).status).toBe(200);
  });

  test("wrong proofs are throttled, but the right one is still accepted", async () => {
    const { params } = await authParams();
    const page = await openConsent(base, params);
    let throttled = false;
    for (let i = 0; i < 12; i++) if ((await submitConsent(base, page, { owner_proof: "nope" })).status === 429) throttled = true;
    expect(throttled).toBe(true);
    expect((await submitConsent(base, page, { owner_proof: admin })).status).toBe(303);
  });
});

describe("CSRF on the consent form", () => {
  test("a form without this browser's cookie, with a wrong csrf field, or from another site is refused", async () => {
    const { params } = await authParams();
    const page = await openConsent(base, params);
    const attempts = [
      submitConsent(base, { ...page, cookie: "" }, { owner_proof: admin }),
      submitConsent(base, { ...page, cookie: "indx_consent=forged" }, { owner_proof: admin }),
      submitConsent(base, { ...page, csrf: "forged" }, { owner_proof: admin }),
      submitConsent(base, page, { owner_proof: admin }, { origin: "https://evil.example" }),
      submitConsent(base, page, { owner_proof: admin }, { "sec-fetch-site": "cross-site" }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.headers.get("location")).toBeNull();
    }
    // The page itself is still good for the real browser.
    expect((await submitConsent(base, page, { owner_proof: admin })).status).toBe(303);
  });
});

describe("expired and revoked tokens", () => {
  test("an expired access token is refused", async () => {
    const got = await exchange(base, await authorizeCode(base, admin));
    expect((await statusWith(base, got.body.access_token)).status).toBe(200);
    const file = join(sb.dataDir, "oauth.json");
    const data = JSON.parse(readFileSync(file, "utf8"));
    const mine = data.access.find((a: { hash: string }) => a.hash === hashSecret(got.body.access_token));
    mine.expires_at = new Date(Date.now() - 1000).toISOString();
    writeFileSync(file, JSON.stringify(data));
    expect((await statusWith(base, got.body.access_token)).status).toBe(401);
  });

  test("revocation (RFC 7009) and indx token revoke both end a grant at once", async () => {
    const a = await exchange(base, await authorizeCode(base, admin));
    const res = await fetch(`${base}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: a.body.refresh_token }),
    });
    expect(res.status).toBe(200);
    expect((await statusWith(base, a.body.access_token)).status).toBe(401);

    const b = await exchange(base, await authorizeCode(base, admin));
    const grant = new OAuthStore(sb.dataDir).grantsList().find((g) => !g.revoked_at && g.refresh_hash === hashSecret(b.body.refresh_token));
    expect(grant).toBeDefined();
    expect(new OAuthStore(sb.dataDir).revoke(grant?.id ?? "", "revoked_by_owner")).toBe(true);
    expect((await statusWith(base, b.body.access_token)).status).toBe(401);
  });
});

describe("the audit log", () => {
  test("grants, refreshes, revocations and failures are recorded, and no token or code ever is", async () => {
    const a = await authorizeCode(base, admin);
    const got = await exchange(base, a);
    await tokenRequest(base, { grant_type: "refresh_token", refresh_token: got.body.refresh_token, client_id: a.clientId });
    const log = readFileSync(join(sb.dataDir, "events.log"), "utf8");
    const kinds = new Set(
      log
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).kind as string),
    );
    for (const k of ["auth.granted", "auth.refreshed", "auth.revoked", "auth.failed"]) expect(kinds.has(k)).toBe(true);
    expect(log).not.toContain("indx_at_");
    expect(log).not.toContain("indx_rt_");
    expect(log).not.toContain("indx_ac_");
    expect(log).not.toContain(a.code);
    expect(log).not.toContain(admin);
  });
});
