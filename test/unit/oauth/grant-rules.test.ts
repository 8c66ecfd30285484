import { expect, test } from "bun:test";
import { chooseGrant, parseRequestedScopes } from "../../../src/oauth/authorize.ts";
import { renderConsent } from "../../../src/oauth/consent-page.ts";
import { bearerChallenge, canonicalResource } from "../../../src/oauth/metadata.ts";
import { newApprovalCode, normalizeApprovalCode, pkceMatches } from "../../../src/oauth/secrets.ts";

test("the owner's choice caps what the client asked; it never adds a scope the client did not ask", () => {
  expect(chooseGrant(["vault:read", "vault:write", "vault:admin"], "read").scopes).toEqual(["vault:read"]);
  expect(chooseGrant(["vault:read", "vault:write"], "write").scopes).toEqual(["vault:read", "vault:write"]);
  expect(chooseGrant(["vault:read"], "admin").scopes).toEqual(["vault:read"]);
  // A forged level is read only.
  expect(chooseGrant(["vault:read", "vault:write"], "everything").scopes).toEqual(["vault:read"]);
});

test("requested scopes: unknown ones refuse the request, offline_access is dropped, none asks read and write", () => {
  expect(parseRequestedScopes("vault:read offline_access")).toEqual(["vault:read"]);
  expect(parseRequestedScopes(null)).toEqual(["vault:read", "vault:write"]);
  expect(parseRequestedScopes("vault:read openid")).toBeNull();
});

test("the resource: this server's base, its /mcp or /v1, any case of scheme and host; nothing else", () => {
  const base = "https://vault.example.com";
  for (const r of [base, `${base}/`, `${base}/mcp`, "HTTPS://Vault.Example.com/mcp", `${base}/v1`]) expect(canonicalResource(r, base)).toBe(base);
  for (const r of ["https://other.example/mcp", `${base}/mcp?x=1`, `${base}/mcpx`, `${base}:8443/mcp`, "not a url", `http://vault.example.com/mcp`])
    expect(canonicalResource(r, base)).toBeNull();
  expect(canonicalResource("https://h.example/indx/mcp", "https://h.example/indx")).toBe("https://h.example/indx");
});

test("approval codes: 16 characters without look-alikes, typed in any case, with or without dashes", () => {
  const code = newApprovalCode();
  expect(code).toMatch(/^[A-HJKMNP-TV-Z2-9]{4}(-[A-HJKMNP-TV-Z2-9]{4}){3}$/);
  expect(normalizeApprovalCode(code.toLowerCase().replace(/-/g, " "))).toBe(code);
});

test("PKCE S256 (RFC 7636 appendix B)", () => {
  expect(pkceMatches("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(true);
  expect(pkceMatches("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(false);
});

test("the consent page escapes what the client chose and labels every control", () => {
  const html = renderConsent({
    clientName: '"><script>alert(1)</script>',
    clientUrl: null,
    redirectHost: "app.example",
    requested: ["vault:read", "vault:write", "vault:admin"],
    requestId: "r",
    csrf: "c",
  });
  expect(html).not.toContain("<script>");
  expect(html).toContain('<label class="field" for="owner_proof">');
  expect(html).toContain('value="admin"');
  expect(html).toMatch(/value="write" checked/);
  expect(html).not.toContain("<script");
});

test("the 401 challenge names the metadata and the scopes; a 403 names the scope needed", () => {
  expect(bearerChallenge("https://v.example")).toBe(
    'Bearer realm="indx", resource_metadata="https://v.example/.well-known/oauth-protected-resource", scope="vault:read vault:write"',
  );
  expect(bearerChallenge("https://v.example", "insufficient_scope", "vault:admin")).toContain('scope="vault:admin", error="insufficient_scope"');
});
