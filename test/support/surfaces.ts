import { expect } from "bun:test";
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { createSession, type McpSession } from "../../src/mcp/session.ts";
import type { Scope } from "../../src/ops/define.ts";
import { assertCliOutput, assertRestOutput, CheckedClient, commandOps } from "./ops.ts";
import type { Sandbox } from "./vault.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

/** One vault on all three surfaces: the REST server on an ephemeral port, an MCP session over the SDK's client, and the CLI in a child process. */
export interface Surfaces {
  ctx: App;
  /** A JSON request with the admin token; the answer is checked against the route's output schema and for leaked absolute paths. */
  rest(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  /** `indx …` in a child process; JSON output is checked against the command's operation. */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** An MCP client with these scopes (write by default). */
  mcp(scopes?: Scope[]): Promise<CheckedClient>;
  close(): Promise<void>;
}

export async function startSurfaces(sb: Sandbox): Promise<Surfaces> {
  const ctx = sb.context();
  const server: RunningServer = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {} });
  const token = loadConfig({ env: sb.env }).str("server.api_key")!;
  const hub = new McpHub(ctx);
  const open: { client: CheckedClient; session: McpSession }[] = [];
  const commands = await commandOps();
  return {
    ctx,
    async rest(method, path, body, headers = {}) {
      const raw = body instanceof Uint8Array;
      const res = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && !raw ? { "content-type": "application/json" } : {}), ...headers },
        ...(body !== undefined ? { body: raw ? body : JSON.stringify(body) } : {}),
      });
      const json: any = await res.json();
      expect(JSON.stringify(json)).not.toContain(sb.dir);
      assertRestOutput(method, path, json);
      return { status: res.status, body: json, headers: res.headers };
    },
    async cli(args) {
      const p = Bun.spawn(["bun", MAIN, ...args], { env: sb.env, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      if (code === 0 && stdout.startsWith("{")) assertCliOutput(commands, args, stdout);
      expect(stderr).not.toContain(sb.dir);
      return { code, stdout, stderr };
    },
    async mcp(scopes = ["vault:read", "vault:write"]) {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const session = await createSession(hub, { scopes: new Set(scopes) });
      await session.server.connect(serverSide);
      const client = new CheckedClient({ name: "surfaces", version: "0" });
      await client.connect(clientSide);
      open.push({ client, session });
      return client;
    },
    async close() {
      for (const o of open) {
        await o.client.close();
        await o.session.close();
      }
      hub.close();
      await server.stop();
      ctx.close();
    },
  };
}
