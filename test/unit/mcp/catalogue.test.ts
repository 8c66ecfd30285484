import { describe, expect, test } from "bun:test";
import { OPERATIONS } from "../../../src/app/registry.ts";
import { catalogueSize, toolOf } from "../../../src/mcp/catalogue.ts";
import { compactInputSchema } from "../../../src/mcp/compact-schema.ts";
import { GLOSSARY, glossaryOf } from "../../../src/mcp/glossary.ts";
import { instructionsFor } from "../../../src/mcp/identity.ts";
import type { Scope } from "../../../src/ops/define.ts";
import { sandbox } from "../../support/vault.ts";

const ALL = new Set<Scope>(["vault:read", "vault:write", "vault:admin"]);
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as { properties: Record<string, unknown>; required?: string[] };

describe("the tool catalogue", () => {
  test('costs an agent at most 5,430 tokens (name, description and inputSchema of every tool, chars/4; docs/decisions.md, "The MCP catalogue budget")', () => {
    const size = catalogueSize(ALL);
    expect(size.tools).toBe(OPERATIONS.filter((op) => !op.ai).length);
    expect(size.tokens).toBeLessThanOrEqual(5430);
    expect(size.tokens_with_output_schema).toBeGreaterThan(size.tokens);
  });

  test("is measured tool by tool too, adding up to the whole (within rounding)", () => {
    const size = catalogueSize(ALL);
    const perTool = Object.values(size.per_tool);
    expect(perTool).toHaveLength(size.tools);
    expect(Math.abs(perTool.reduce((a, b) => a + b, 0) - size.tokens)).toBeLessThanOrEqual(size.tools / 2);
  });

  test('with a chat model, the AI tools add at most 3,950 tokens (docs/decisions.md, "The MCP catalogue budget")', () => {
    const sb = sandbox();
    Object.assign(sb.env, { INDX_AI_PROVIDER: "ollama", INDX_AI_MODEL: "any-chat-model" });
    const ctx = sb.context();
    try {
      const size = catalogueSize(ALL, ctx);
      expect(size.tools).toBe(OPERATIONS.length);
      expect(size.tokens - catalogueSize(ALL).tokens).toBeLessThanOrEqual(3950);
    } finally {
      ctx.close();
      sb.cleanup();
    }
  });

  test("compact schemas keep every field and every required one", () => {
    for (const op of OPERATIONS) {
      const full = plain(op.input);
      const compact = toolOf(op).inputSchema;
      expect(Object.keys(compact.properties ?? {})).toEqual(Object.keys(full.properties));
      expect(compact.required ?? []).toEqual(full.required ?? []);
    }
  });

  test("a field description left out of a schema is in the instructions of every session that can use it", () => {
    for (const scopes of [new Set<Scope>(["vault:read"]), ALL]) {
      const tools = OPERATIONS.map(toolOf).filter((t) => scopes.has(String(t._meta?.["indx/scope"]) as Scope));
      const instructions = instructionsFor({ scopes, noteCount: 1, glossary: glossaryOf(tools) });
      for (const op of OPERATIONS.filter((o) => scopes.has(o.scope))) {
        const full = plain(op.input).properties as Record<string, { description?: string }>;
        const compact = toolOf(op).inputSchema.properties as Record<string, { description?: string }>;
        for (const [name, field] of Object.entries(full))
          if (field.description && !compact[name]!.description) expect(instructions).toContain(`- ${name}: ${field.description}`);
      }
    }
  });

  test("every description in an input schema, however deep, is in the tool's schema or in the instructions of every session that can use it", () => {
    const descriptionsIn = (node: unknown): string[] =>
      Array.isArray(node)
        ? node.flatMap(descriptionsIn)
        : typeof node === "object" && node !== null
          ? Object.entries(node).flatMap(([key, value]) => (key === "description" && typeof value === "string" ? [value] : descriptionsIn(value)))
          : [];
    for (const scopes of [new Set<Scope>(["vault:read"]), ALL]) {
      const ops = OPERATIONS.filter((o) => scopes.has(o.scope));
      const instructions = instructionsFor({ scopes, noteCount: 1, glossary: glossaryOf(ops.map(toolOf)) });
      for (const op of ops) {
        const compact = JSON.stringify(toolOf(op).inputSchema);
        for (const description of descriptionsIn(plain(op.input))) {
          const said =
            compact.includes(JSON.stringify(description)) || instructions.includes(description) || instructions.includes(JSON.stringify(description));
          expect(said ? description : `${op.name}: "${description}" is nowhere`).toBe(description);
        }
      }
    }
  });

  test("a shared type is said once, in the instructions of every session whose tools take it, and keeps only its shape in the tools", () => {
    const titlesIn = (schema: unknown): string[] => [...JSON.stringify(schema).matchAll(/"title":"([^"]+)"/g)].map((m) => m[1]!);
    const tools = OPERATIONS.map(toolOf);
    const instructions = instructionsFor({ scopes: ALL, noteCount: 1, glossary: glossaryOf(tools) });
    const named = new Set(tools.flatMap((t) => titlesIn(t.inputSchema)));
    expect([...named].sort()).toEqual(["AiScope", "CanvasEdge", "CanvasNode"]);
    // In a tool, a shared type is its shape: field names and types a client without the instructions can still fill, no descriptions.
    const usesIn = (node: unknown): Record<string, unknown>[] =>
      Array.isArray(node)
        ? node.flatMap(usesIn)
        : typeof node === "object" && node !== null
          ? [...(named.has(String((node as { title?: unknown }).title)) ? [node as Record<string, unknown>] : []), ...Object.values(node).flatMap(usesIn)]
          : [];
    const uses = tools.flatMap((t) => usesIn(t.inputSchema));
    expect(uses.length).toBeGreaterThanOrEqual(9);
    for (const use of uses) {
      expect(Object.keys(use.properties as object).length).toBeGreaterThan(3);
      expect(JSON.stringify(use.properties)).not.toContain('"description"');
    }
    for (const title of named) expect(instructions.split("\n").filter((line) => line.startsWith(`- ${title}: `))).toHaveLength(1);
    const canvasOnly = instructionsFor({ scopes: ALL, noteCount: 1, glossary: glossaryOf(tools.filter((t) => t.name === "canvas_patch")) });
    expect(canvasOnly).toContain("- CanvasNode: ");
    expect(canvasOnly).not.toContain("- AiScope: ");
  });

  test("a bound or default a tool's field leaves out is the shared one, in the instructions (seed, max_tokens, cache, limit, …)", () => {
    const tools = OPERATIONS.map(toolOf);
    const lines = instructionsFor({ scopes: ALL, noteCount: 1, glossary: glossaryOf(tools) }).split("\n");
    const withoutFieldGlossary = { fields: new Map(), types: GLOSSARY.types };
    let leftOut = 0;
    for (const op of OPERATIONS) {
      const full = compactInputSchema(JSON.parse(JSON.stringify(op.input)), withoutFieldGlossary).properties as Record<string, Record<string, unknown>>;
      const compact = toolOf(op).inputSchema.properties as Record<string, Record<string, unknown>>;
      for (const [name, field] of Object.entries(full))
        for (const [key, value] of Object.entries(field)) {
          if (key === "description" || key in compact[name]!) continue;
          leftOut++;
          expect(lines.some((line) => line.startsWith(`- ${name}: `) && line.includes(`"${key}":${JSON.stringify(value)}`))).toBe(true);
        }
    }
    expect(leftOut).toBeGreaterThan(0);
  });

  test("a session's instructions give a shared field only in the meanings its tools use", () => {
    const aiIfMatch = /^- if_match: path → etag/m;
    const writeIfMatch = /^- if_match: The etag from your last read/m;
    const instructionsOf = (ops: typeof OPERATIONS) => instructionsFor({ scopes: ALL, noteCount: 1, glossary: glossaryOf(ops.map(toolOf)) });
    const withoutAi = instructionsOf(OPERATIONS.filter((op) => !op.ai));
    expect(withoutAi).toMatch(writeIfMatch);
    expect(withoutAi).not.toMatch(aiIfMatch);
    const withAi = instructionsOf(OPERATIONS);
    expect(withAi).toMatch(writeIfMatch);
    expect(withAi).toMatch(aiIfMatch);
  });
});
