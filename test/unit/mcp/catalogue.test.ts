import { afterAll, describe, expect, test } from "bun:test";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { App } from "../../../src/app/context.ts";
import { OPERATIONS } from "../../../src/app/registry.ts";
import { catalogueSize, TOOL_PROFILES, toolOf, toolText, visibleTools } from "../../../src/mcp/catalogue.ts";
import { instructionsFor } from "../../../src/mcp/identity.ts";
import type { Scope } from "../../../src/ops/define.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

const ALL = new Set<Scope>(["vault:read", "vault:write", "vault:admin"]);
const READ = new Set<Scope>(["vault:read"]);
type Schema = { properties?: Record<string, Schema>; required?: string[]; description?: string; [key: string]: unknown };
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Schema;
const tokens = (tools: Tool[]) => tools.reduce((sum, t) => sum + encode(toolText(t)).length, 0);

const sandboxes: Sandbox[] = [];
const apps: App[] = [];
function vaultWith(env: Record<string, string>): App {
  const sb = sandbox();
  Object.assign(sb.env, env);
  sandboxes.push(sb);
  const app = sb.context();
  apps.push(app);
  return app;
}
afterAll(() => {
  for (const app of apps) app.close();
  for (const sb of sandboxes) sb.cleanup();
});
const AI = { INDX_AI_PROVIDER: "ollama", INDX_AI_MODEL: "any-chat-model", INDX_EMBEDDINGS_PROVIDER: "ollama", INDX_EMBEDDINGS_MODEL: "any-embedding-model" };

/** Budgets in o200k tokens (docs/decisions.md, "An MCP catalogue an agent can afford"; scripts/bench/catalogue.ts prints the figures). */
describe("the tool catalogue's cost", () => {
  test("the whole catalogue without AI tools costs at most 4,383 tokens (36 tools, document_read and vault_list among them), with every field described", () => {
    const tools = visibleTools(ALL, vaultWith({}));
    expect(tools).toHaveLength(OPERATIONS.filter((op) => !op.ai).length);
    expect(tokens(tools)).toBeLessThanOrEqual(4383);
  });

  test("with a chat model and embeddings, every tool costs at most 7,499 tokens", () => {
    const tools = visibleTools(ALL, vaultWith(AI));
    expect(tools).toHaveLength(OPERATIONS.length);
    expect(tokens(tools)).toBeLessThanOrEqual(7499);
  });

  test("the core profile lists search, read, write, patch, list and backlinks in at most 1,500 tokens", () => {
    const tools = visibleTools(ALL, vaultWith({ INDX_MCP_TOOLS: "core" }));
    expect(tools.map((t) => t.name).sort()).toEqual([...(TOOL_PROFILES.core ?? [])].sort());
    expect(tokens(tools)).toBeLessThanOrEqual(1500);
  });

  test("a profile and tool names combine; the scopes still decide", () => {
    const app = vaultWith({ INDX_MCP_TOOLS: "core,tag_rename" });
    expect(visibleTools(ALL, app).map((t) => t.name)).toContain("tag_rename");
    expect(
      visibleTools(READ, app)
        .map((t) => t.name)
        .sort(),
    ).toEqual(["link_backlinks", "note_list", "note_read", "vault_search"]);
  });

  test("the instructions cost at most 500 tokens in every form, and a profile's name the tools it leaves out", () => {
    const app = vaultWith({ INDX_MCP_TOOLS: "core" });
    const everything = visibleTools(ALL, vaultWith(AI));
    const core = visibleTools(ALL, app);
    const forms = [
      instructionsFor({ scopes: ALL, noteCount: 100000, tools: everything }),
      instructionsFor({ scopes: READ, noteCount: null, tools: visibleTools(READ) }),
      instructionsFor({ scopes: ALL, noteCount: 5000, tools: core, allowed: everything.map((t) => t.name) }),
    ];
    for (const text of forms) expect(encode(text).length).toBeLessThanOrEqual(500);
    for (const name of everything.map((t) => t.name).filter((n) => !core.some((t) => t.name === n))) expect(forms[2]).toContain(name);
    expect(forms[0]).not.toContain("indx mcp --tools all");
  });

  test("catalogueSize (chars/4, for `indx mcp catalogue`) adds up tool by tool", () => {
    const size = catalogueSize(ALL);
    const perTool = Object.values(size.per_tool);
    expect(perTool).toHaveLength(size.tools);
    expect(Math.abs(perTool.reduce((a, b) => a + b, 0) - size.tokens)).toBeLessThanOrEqual(size.tools / 2);
    expect(size.tokens_with_output_schema).toBeGreaterThan(size.tokens);
  });
});

describe("the tool catalogue's meaning", () => {
  test("every input field of every tool is described in the tool itself", () => {
    const undescribed = OPERATIONS.flatMap((op) =>
      Object.entries(plain(toolOf(op).inputSchema).properties ?? {})
        .filter(([, field]) => typeof field.description !== "string" || field.description.length === 0)
        .map(([name]) => `${op.name}.${name}`),
    );
    expect(undescribed).toEqual([]);
  });

  test("every description in an operation's input schema, however deep, is in its tool, or in the tool that gives a shared type in full", () => {
    const descriptionsIn = (node: unknown): string[] =>
      Array.isArray(node)
        ? node.flatMap(descriptionsIn)
        : typeof node === "object" && node !== null
          ? Object.entries(node).flatMap(([key, value]) => (key === "description" && typeof value === "string" ? [value] : descriptionsIn(value)))
          : [];
    const tools = visibleTools(ALL, vaultWith(AI));
    const catalogue = JSON.stringify(tools.map((t) => t.inputSchema));
    for (const op of OPERATIONS) {
      const own = JSON.stringify(tools.find((t) => t.name === op.name)?.inputSchema);
      for (const description of descriptionsIn(plain(op.input))) {
        const said = own.includes(JSON.stringify(description).slice(1, -1)) || catalogue.includes(JSON.stringify(description).slice(1, -1));
        expect(said ? description : `${op.name}: "${description}" is nowhere`).toBe(description);
      }
    }
  });

  test("a shared type is given in full once per catalogue and named where it recurs", () => {
    const tools = visibleTools(ALL);
    const full = (title: string) => tools.filter((t) => JSON.stringify(t.inputSchema).includes(`"title":"${title}"`)).map((t) => t.name);
    expect(full("CanvasNode")).toEqual(["canvas_write"]);
    expect(JSON.stringify(tools.find((t) => t.name === "canvas_patch")?.inputSchema)).toContain("A CanvasNode, as in canvas_write.");
    // Alone, a tool gives the type in full.
    expect(JSON.stringify(toolOf(OPERATIONS.find((op) => op.name === "canvas_patch") ?? OPERATIONS[0]!).inputSchema)).toContain('"title":"CanvasNode"');
  });

  test("a type like a shared one (ai_relate's source, an AiScope whose kind may be path) gives only the fields that differ", () => {
    const relate = visibleTools(ALL, vaultWith(AI)).find((t) => t.name === "ai_relate");
    const source = plain(relate?.inputSchema).properties?.source;
    expect(source?.description).toContain("see AiScope in ai_summarize");
    expect(Object.keys(source?.properties ?? {})).toEqual(["kind"]);
    expect((source?.properties?.kind as { enum?: string[] } | undefined)?.enum).toContain("path");
    // Alone, the tool gives every field, and no marker leaks into a schema.
    const alone = JSON.stringify(toolOf(OPERATIONS.find((op) => op.name === "ai_relate") ?? OPERATIONS[0]!).inputSchema);
    expect(alone).toContain('"include_linked"');
    expect(JSON.stringify(visibleTools(ALL, vaultWith(AI)).map((t) => t.inputSchema)) + alone).not.toContain("x-indx-like");
  });

  test("no $ref or $defs: several clients cannot resolve them", () => {
    expect(JSON.stringify(visibleTools(ALL, vaultWith(AI)).map((t) => t.inputSchema))).not.toMatch(/"\$(ref|defs)"/);
  });

  test("compact schemas keep every top-level field and every required one", () => {
    for (const op of OPERATIONS) {
      const full = plain(op.input);
      const compact = toolOf(op).inputSchema;
      expect(Object.keys(compact.properties ?? {})).toEqual(Object.keys(full.properties ?? {}));
      expect(compact.required ?? []).toEqual(full.required ?? []);
    }
  });

  test("note_patch's edits are one object: op names each edit with the fields it requires", () => {
    const op = OPERATIONS.find((o) => o.name === "note_patch");
    if (!op) throw new Error("note_patch missing");
    const items = plain(toolOf(op).inputSchema).properties?.ops?.items as Schema;
    const opField = items.properties?.op as { enum: string[]; description: string };
    const branches = (plain(op.input).properties?.ops?.items as { anyOf: Schema[] } | undefined)?.anyOf ?? [];
    expect(branches.length).toBeGreaterThan(5);
    expect(opField.enum).toHaveLength(branches.length);
    for (const branch of branches) {
      const name = (branch.properties?.op as { const: string } | undefined)?.const;
      const required = (branch.required ?? []).filter((f) => f !== "op");
      expect(opField.description).toContain(`${name}(${required.join(", ")}`);
      for (const field of required) expect(items.properties).toHaveProperty(field);
    }
  });
});
