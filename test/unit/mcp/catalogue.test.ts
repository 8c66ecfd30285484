import { describe, expect, test } from "bun:test";
import { catalogueSize, toolOf } from "../../../src/mcp/catalogue.ts";
import { sharedFieldsOf } from "../../../src/mcp/glossary.ts";
import { instructionsFor } from "../../../src/mcp/identity.ts";
import type { Scope } from "../../../src/ops/define.ts";
import { OPERATIONS } from "../../../src/ops/registry.ts";
import { sandbox } from "../../support/vault.ts";

const ALL = new Set<Scope>(["vault:read", "vault:write", "vault:admin"]);
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as { properties: Record<string, unknown>; required?: string[] };

describe("the tool catalogue", () => {
  test('costs an agent at most 5,550 tokens (name, description and inputSchema of every tool, chars/4; docs/decisions.md, "The catalogue budget grows by what each tool costs")', () => {
    const size = catalogueSize(ALL);
    expect(size.tools).toBe(OPERATIONS.filter((op) => !op.ai).length);
    expect(size.tokens).toBeLessThanOrEqual(5550);
    expect(size.tokens_with_output_schema).toBeGreaterThan(size.tokens);
  });

  test('with a chat model, the AI tools add at most 5,100 tokens (docs/decisions.md, "AI scopes", "ai_tag", "ai_relate", "ai_extract")', () => {
    const sb = sandbox();
    Object.assign(sb.env, { INDX_AI_PROVIDER: "ollama", INDX_AI_MODEL: "any-chat-model" });
    const ctx = sb.context();
    try {
      const size = catalogueSize(ALL, ctx);
      expect(size.tools).toBe(OPERATIONS.length);
      expect(size.tokens - catalogueSize(ALL).tokens).toBeLessThanOrEqual(5100);
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
      const instructions = instructionsFor({ scopes, noteCount: 1, sharedFields: sharedFieldsOf(tools) });
      for (const op of OPERATIONS.filter((o) => scopes.has(o.scope))) {
        const full = plain(op.input).properties as Record<string, { description?: string }>;
        const compact = toolOf(op).inputSchema.properties as Record<string, { description?: string }>;
        for (const [name, field] of Object.entries(full))
          if (field.description && !compact[name]!.description) expect(instructions).toContain(`- ${name}: ${field.description}`);
      }
    }
  });
});
