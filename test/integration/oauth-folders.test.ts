import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { exchange, openConsent, REDIRECT, register, submitConsent, tokenRequest, verifierAndChallenge } from "../support/oauth.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Folders on the consent page (docs/permissions.md, docs/remote-access.md): the owner limits an
 * OAuth grant to folders; its access tokens, and those every refresh mints, see only those.
 */
const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

let sb: Sandbox;
let server: RunningServer;
let base: string;

const cli = (...args: string[]) => {
  const p = Bun.spawnSync(["bun", MAIN, ...args, "--json"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  return JSON.parse(p.stdout.toString());
};

beforeAll(async () => {
  sb = sandbox({
    "Projects/Alpha.md": "# Alpha\n\nThe quokka plan for Alpha.\n",
    "Personal/Diary.md": "# Diary\n\nA private quokka entry, zebra.\n",
  });
  server = await startServer(sb.context({ "server.read_workers": 0 }), { host: "127.0.0.1", port: 0, watch: false, notice: () => {} });
  base = server.url;
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

async function consentPage(scope = "vault:read vault:write") {
  const clientId = await register(base, [REDIRECT], "Folder test client");
  const { verifier, challenge } = verifierAndChallenge();
  const page = await openConsent(base, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope,
    resource: `${base}/mcp`,
  });
  expect(page.status).toBe(200);
  return { clientId, verifier, page };
}

const codeOf = (res: Response) => new URL(res.headers.get("location") ?? "http://x/").searchParams.get("code") ?? "";

async function readNote(token: string, path: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${base}/v1/notes/${encodeURI(path)}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, code: body.error?.code };
}

async function searchPaths(token: string, q: string): Promise<string[]> {
  const res = await fetch(`${base}/v1/search?q=${q}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { results: { path: string }[] } };
  return body.data.results.map((r) => r.path);
}

async function mcpRead(token: string, path: string): Promise<string> {
  const client = new Client({ name: "oauth-folders", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const r = await client.callTool({ name: "note_read", arguments: { path } });
    return JSON.stringify(r);
  } finally {
    await client.close();
  }
}

describe("folders granted on the consent page", () => {
  test("the page offers both folder fields, labelled and described, empty by default", async () => {
    const { page } = await consentPage();
    for (const name of ["read_folders", "write_folders"]) {
      expect(page.html).toContain(`<label class="field" for="${name}">`);
      expect(page.html).toMatch(new RegExp(`<textarea id="${name}" name="${name}"[^>]*aria-describedby="folders-hint [a-z]+-hint"[^>]*></textarea>`));
    }
    expect(page.html).not.toContain("<script");
    // A client that asks only to read is not offered write folders.
    const readOnly = await consentPage("vault:read");
    expect(readOnly.page.html).toContain('id="read_folders"');
    expect(readOnly.page.html).not.toContain("write_folders");
  });

  test("a token granted read Projects/** gets not_found for a hidden note over REST and MCP, and search never shows it; a refresh keeps the folders", async () => {
    const { clientId, verifier, page } = await consentPage("vault:read");
    const approval = cli("auth", "approve").code as string;
    const res = await submitConsent(base, page, { owner_proof: approval, access: "read", read_folders: "Projects/**" });
    expect(res.status).toBe(303);
    const first = await exchange(base, { clientId, code: codeOf(res), verifier });
    expect(first.status).toBe(200);
    const access = first.body.access_token as string;

    expect((await readNote(access, "Projects/Alpha.md")).status).toBe(200);
    expect(await readNote(access, "Personal/Diary.md")).toEqual({ status: 404, code: "not_found" });
    expect(await searchPaths(access, "quokka")).toEqual(["Projects/Alpha.md"]);
    expect(await mcpRead(access, "Personal/Diary.md")).toContain("not_found");
    expect(await mcpRead(access, "Personal/Diary.md")).not.toContain("zebra");
    expect(await mcpRead(access, "Projects/Alpha.md")).toContain("quokka plan");

    const refreshed = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
      client_id: clientId,
      resource: `${base}/mcp`,
    });
    expect(refreshed.status).toBe(200);
    const again = refreshed.body.access_token as string;
    expect(again).not.toBe(access);
    expect(await readNote(again, "Personal/Diary.md")).toEqual({ status: 404, code: "not_found" });
    expect(await searchPaths(again, "quokka")).toEqual(["Projects/Alpha.md"]);

    // The audit log records what was granted, folders included.
    const granted = readFileSync(join(sb.dataDir, "events.log"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; auth?: { client_name?: string; folders?: unknown } })
      .find((e) => e.kind === "auth.granted" && e.auth?.client_name === "Folder test client");
    expect(granted?.auth?.folders).toEqual({ read: ["Projects/**"] });
    // The owner sees the grant's folders.
    const listed = (cli("token", "list") as { kind: string; name: string; grant?: unknown }[]).find(
      (t) => t.kind === "oauth" && t.name === "Folder test client",
    );
    expect(listed?.grant).toEqual({ read: ["Projects/**"] });
    const human = Bun.spawnSync(["bun", MAIN, "token", "list", "--format", "table"], { env: sb.env, stdout: "pipe" }).stdout.toString();
    expect(human).toContain("read Projects/**");
  });

  test("without folders the grant is the whole vault, as before", async () => {
    const { clientId, verifier, page } = await consentPage("vault:read");
    const res = await submitConsent(base, page, { owner_proof: cli("auth", "approve").code, access: "read", read_folders: " \n, " });
    const token = (await exchange(base, { clientId, code: codeOf(res), verifier })).body.access_token as string;
    expect((await readNote(token, "Personal/Diary.md")).status).toBe(200);
  });

  test("write folders, comma-separated or one per line, with a brace glob kept whole, need the write level", async () => {
    const { clientId, verifier, page } = await consentPage();
    const proof = cli("auth", "approve").code as string;
    const refused = await submitConsent(base, page, { owner_proof: proof, access: "read", write_folders: "Inbox/**" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Read and write");
    // The approval code was not spent on the refused form.
    const res = await submitConsent(base, page, {
      owner_proof: proof,
      access: "write",
      read_folders: "Projects/{Alpha,Beta}.md,\nReference/**",
      write_folders: "Inbox/**",
    });
    expect(res.status).toBe(303);
    expect((await exchange(base, { clientId, code: codeOf(res), verifier })).status).toBe(200);
    const listed = (cli("token", "list") as { kind: string; grant?: { read?: string[]; write?: string[] } }[]).filter((t) => t.kind === "oauth");
    expect(listed.at(-1)?.grant).toEqual({ read: ["Projects/{Alpha,Beta}.md", "Reference/**"], write: ["Inbox/**"] });
  });

  test("a glob a grant may not hold is refused on the page, the typed text kept (escaped), the code not spent", async () => {
    const { page } = await consentPage();
    const proof = cli("auth", "approve").code as string;
    for (const bad of ["../Personal/**", "/etc/**", "[z-a]"]) {
      const res = await submitConsent(base, page, { owner_proof: proof, access: "write", read_folders: `${bad}\n<b>x</b>` });
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain('role="alert" id="folders-error"');
      expect(html).toContain('aria-invalid="true"');
      expect(html).toContain("&#60;b&#62;x&#60;/b&#62;");
      expect(html).not.toContain("<b>x</b>");
    }
    expect((await submitConsent(base, page, { owner_proof: proof, access: "write", read_folders: "Projects/**" })).status).toBe(303);
  });
});
