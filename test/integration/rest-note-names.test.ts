import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** REST resolves a note's name as MCP and the CLI do (one rule: src/app/note-names.ts). */
let sb: Sandbox;
let server: RunningServer;
let key: string;

beforeAll(async () => {
  sb = sandbox({}, { fromDemo: true });
  const ctx = sb.context();
  await ctx.updateIndex({ build: true });
  server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {} });
  key = loadConfig({ env: sb.env }).str("server.api_key") ?? "";
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

const get = async (path: string) => {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return {
    status: res.status,
    body: (await res.json()) as { ok: boolean; data?: Record<string, unknown>; error?: { code: string; details?: Record<string, unknown> } },
  };
};

describe("REST paths by name", () => {
  test("GET /v1/notes/<name> reads the note the name resolves to", async () => {
    const r = await get("/v1/notes/Apollo%20Launch");
    expect(r.status).toBe(200);
    expect(r.body.data?.path).toBe("Projects/Apollo Launch.md");
  });

  test("a miss is 404 with suggestions", async () => {
    const r = await get("/v1/notes/Projects/Apolo%20Launch.md");
    expect(r.status).toBe(404);
    expect(r.body.error?.details?.suggestions).toEqual(["Projects/Apollo Launch.md"]);
  });
});
