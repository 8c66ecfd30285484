import { describe, expect, test } from "bun:test";
import { OPERATIONS } from "../../src/app/registry.ts";
import { ROUTES } from "../../src/http/routes.ts";
import { visibleTools } from "../../src/mcp/catalogue.ts";
import type { AnyOperation } from "../../src/ops/define.ts";
import { commandOps } from "../support/ops.ts";
import { sandbox } from "../support/vault.ts";

/** A vault with a chat model configured (nothing is contacted: listing tools only reads the settings). */
const withChat = sandbox();
Object.assign(withChat.env, { INDX_AI_PROVIDER: "ollama", INDX_AI_MODEL: "any-chat-model" });
const aiCtx = withChat.context();

/**
 * One core, three surfaces: every operation is reachable over REST, the CLI and MCP, and no
 * surface offers an operation the registry does not hold. A gap is either closed or listed here
 * with its reason.
 */
const EXEMPT: Record<"rest" | "cli" | "mcp", Record<string, string>> = {
  rest: { note_outline: "REST clients read headings with GET /v1/notes/{path}?include=outline (note_read), as the route table documents." },
  cli: {},
  mcp: {},
};

const names = (ops: Iterable<AnyOperation>) => new Set([...ops].map((op) => op.name));

async function surfaces(): Promise<Record<"rest" | "cli" | "mcp", Set<string>>> {
  const tools = visibleTools(new Set(["vault:admin"]), aiCtx);
  return {
    rest: names(ROUTES.map((r) => r.op)),
    cli: names((await commandOps()).values()),
    mcp: new Set(tools.map((t) => t.name)),
  };
}

describe("surface parity", () => {
  test("AI tools are listed only when their model role is configured", () => {
    const plain = sandbox().context();
    const ai = OPERATIONS.filter((op) => op.ai).map((op) => op.name);
    expect(ai.length).toBeGreaterThan(0);
    expect(visibleTools(new Set(["vault:admin"]), plain).filter((t) => ai.includes(t.name))).toEqual([]);
    expect(
      visibleTools(new Set(["vault:admin"]), aiCtx)
        .filter((t) => ai.includes(t.name))
        .map((t) => t.name),
    ).toEqual(ai);
  });

  test("every operation has a REST route, a CLI command and an MCP tool, or a listed exemption", async () => {
    const offered = await surfaces();
    const missing: string[] = [];
    for (const surface of ["rest", "cli", "mcp"] as const)
      for (const op of OPERATIONS) if (!offered[surface].has(op.name) && !EXEMPT[surface][op.name]) missing.push(`${surface}: ${op.name}`);
    expect(missing).toEqual([]);
  });

  test("no surface names an operation outside the registry", async () => {
    const registered = new Set<AnyOperation>(OPERATIONS);
    expect(ROUTES.filter((r) => !registered.has(r.op)).map((r) => `${r.method} ${r.prefix}`)).toEqual([]);
    const commands = [...(await commandOps())].filter(([, op]) => !registered.has(op)).map(([words]) => words);
    expect(commands).toEqual([]);
    const known = names(OPERATIONS);
    expect(
      visibleTools(new Set(["vault:admin"]), aiCtx)
        .filter((t) => !known.has(t.name))
        .map((t) => t.name),
    ).toEqual([]);
  });

  test("every exemption names a registered operation that the surface really lacks", async () => {
    const offered = await surfaces();
    const known = names(OPERATIONS);
    for (const surface of ["rest", "cli", "mcp"] as const)
      for (const name of Object.keys(EXEMPT[surface])) {
        expect(known.has(name)).toBe(true);
        expect(offered[surface].has(name)).toBe(false);
      }
  });

  test("the hand-written `vault index` is the CLI face of vault_reindex", async () => {
    expect((await commandOps()).get("vault index")?.name).toBe("vault_reindex");
  });
});
