import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { exchange, openConsent, REDIRECT, statusWith, submitConsent, verifierAndChallenge } from "../support/oauth.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The owner's side of OAuth: a client identified by its metadata document (served from 127.0.0.1,
 * which only the explicit test mode lets the server fetch), approved with a code from
 * `indx auth approve` (a separate process), listed and revoked with `indx token`.
 */
const MAIN = `${import.meta.dir}/../../src/main.ts`;

let sb: Sandbox;
let server: RunningServer;
let base: string;
let clientHost: ReturnType<typeof Bun.serve>;
let clientId: string;

const cli = (...args: string[]) => {
  const p = Bun.spawnSync(["bun", MAIN, ...args, "--json"], { env: sb.env });
  if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  return JSON.parse(p.stdout.toString());
};

beforeAll(async () => {
  process.env.INDX_OAUTH_TEST_ALLOW_PRIVATE_FETCH = "1";
  clientHost = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => Response.json({ client_id: req.url, client_name: "Phone <b>Notes</b> App", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
  });
  clientId = `http://127.0.0.1:${clientHost.port}/oauth/client.json`;
  sb = sandbox({ "Note.md": "# Note\n" });
  server = await startServer(sb.context({ "server.read_workers": 0 }), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  base = server.url;
});

afterAll(async () => {
  delete process.env.INDX_OAUTH_TEST_ALLOW_PRIVATE_FETCH;
  await server?.stop();
  clientHost?.stop(true);
  sb?.cleanup();
});

describe("a client with a metadata document, approved from the CLI", () => {
  test("the page names the client (escaped) and its redirect host; the CLI's code approves; token list and revoke see the grant", async () => {
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as.client_id_metadata_document_supported).toBe(true);

    const { verifier, challenge } = verifierAndChallenge();
    const page = await openConsent(base, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "xyz",
      scope: "vault:read vault:write",
      resource: base,
    });
    expect(page.status).toBe(200);
    expect(page.html).toContain("Phone &#60;b&#62;Notes&#60;/b&#62; App");
    expect(page.html).not.toContain("<b>Notes");
    expect(page.html).toContain("127.0.0.1:9");
    expect(page.html).toContain(clientId);

    const { code } = cli("auth", "approve");
    expect(code).toMatch(/^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
    const res = await submitConsent(base, page, { owner_proof: code, access: "read" });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get("location") ?? "");
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("xyz");
    expect(back.searchParams.get("iss")).toBe(base);
    const tokens = await exchange(base, { clientId, code: back.searchParams.get("code") ?? "", verifier });
    expect(tokens.body.scope).toBe("vault:read");
    expect((await statusWith(base, tokens.body.access_token)).status).toBe(200);

    const listed = cli("token", "list") as { id: string; kind: string; client_id?: string; scopes: string[]; name: string }[];
    const grant = listed.find((t) => t.kind === "oauth");
    expect(grant).toMatchObject({ client_id: clientId, scopes: ["vault:read"], name: "Phone <b>Notes</b> App" });
    expect(JSON.stringify(listed)).not.toContain("indx_at_");

    cli("token", "revoke", grant?.id ?? "");
    expect((await statusWith(base, tokens.body.access_token)).status).toBe(401);
    const log = readFileSync(join(sb.dataDir, "events.log"), "utf8");
    expect(log).toContain('"kind":"auth.granted"');
    expect(log).toContain(`"grant_id":"${grant?.id}","reason":"revoked_by_owner"`);
    expect(log).not.toContain(code);
  });

  test("a metadata document whose redirect URIs do not include the asked one gets the error page", async () => {
    const { challenge } = verifierAndChallenge();
    const page = await openConsent(base, {
      client_id: clientId,
      redirect_uri: "https://evil.example/cb",
      response_type: "code",
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
  });
});

describe("rate limits", () => {
  test("a flood from one address on an OAuth endpoint gets 429 with Retry-After (server.rate_limit_*)", async () => {
    const answers = await Promise.all(Array.from({ length: 150 }, () => fetch(`${base}/.well-known/oauth-authorization-server`)));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(100);
  });
});
