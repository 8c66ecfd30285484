import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../app/context.ts";
import { OPERATIONS } from "../app/registry.ts";
import type { AnyOperation, Scope } from "../ops/define.ts";
import { hasScope } from "../ops/invoke.ts";
import { formFor } from "../ops/read-only-form.ts";
import { compactInputSchema, type JsonObject } from "./compact-schema.ts";
import { GLOSSARY } from "./glossary.ts";

/** TypeBox schemas are JSON Schema plus symbol keys; a JSON round trip leaves the plain schema. */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as JsonObject;

const toolCache = new Map<string, Tool>();

const ALL_SCOPES: ReadonlySet<Scope> = new Set(["vault:admin"]);

/** An operation as an MCP tool: generated, never hand-written (docs/mcp.md, Tools); its inputSchema compacted for the agent. */
export function toolOf(op: AnyOperation): Tool {
  return toolFor(op, ALL_SCOPES);
}

/** The tool as a caller with these scopes sees it: without vault:write, an operation that writes only for some inputs is its suggest-only form. */
function toolFor(op: AnyOperation, scopes: ReadonlySet<Scope>, openWorld = false): Tool {
  const form = formFor(op, scopes);
  const key = `${op.name}${form.input === op.input ? "" : ":read-only"}${openWorld ? ":open-world" : ""}`;
  let tool = toolCache.get(key);
  if (!tool) {
    tool = {
      name: op.name,
      title: op.title,
      description: form.description,
      inputSchema: { ...compactInputSchema(plain(form.input), GLOSSARY), type: "object" },
      outputSchema: { ...plain(op.output), type: "object" },
      annotations: {
        title: op.title,
        readOnlyHint: form.readOnly,
        idempotentHint: op.safe,
        destructiveHint: op.destructive === true && !form.readOnly,
        openWorldHint: openWorld,
      },
      _meta: { "indx/scope": op.scope },
    };
    toolCache.set(key, tool);
  }
  return tool;
}

/**
 * The tools a caller with these scopes may see: the others are not advertised at all, nor are AI
 * tools whose model role this vault has not configured (docs/contracts.md, AI runtime).
 */
export function visibleTools(scopes: ReadonlySet<Scope>, ctx?: App): Tool[] {
  return OPERATIONS.filter((op) => hasScope(scopes, op.scope) && (!op.ai || ctx?.ai.offers(op.ai.needs) === true)).map((op) =>
    toolFor(op, scopes, ctx !== undefined && sendsElsewhere(op, ctx)),
  );
}

/**
 * openWorldHint (docs/contracts.md, "Threat model"): a tool that may send note text to a model that is
 * not on this machine — an AI operation whose role is served elsewhere, and vault_search, which
 * sends candidates to the chat model when asked to rerank.
 */
function sendsElsewhere(op: AnyOperation, ctx: App): boolean {
  if (op.ai) return ctx.ai.sendsElsewhere(op.ai.needs);
  return op.name === "vault_search" && ctx.ai.sendsElsewhere("chat");
}

export interface CatalogueSize {
  tools: number;
  /** chars/4 of the JSON of each tool's name, description and inputSchema: what an agent pays on every turn. */
  tokens: number;
  /** The same with each tool's outputSchema, which some clients also pass to the model. */
  tokens_with_output_schema: number;
  /** `tokens` tool by tool, to see where a budget goes. */
  per_tool: Record<string, number>;
}

/** The catalogue a session with these scopes sees, measured in tokens (chars/4). */
export function catalogueSize(scopes: ReadonlySet<Scope>, ctx?: App): CatalogueSize {
  const tools = visibleTools(scopes, ctx);
  const chars = (t: Tool, withOutput: boolean) =>
    JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema, ...(withOutput ? { outputSchema: t.outputSchema } : {}) }).length;
  const tokens = (withOutput: boolean) => Math.round(tools.reduce((sum, t) => sum + chars(t, withOutput), 0) / 4);
  const per_tool = Object.fromEntries(tools.map((t) => [t.name, Math.round(chars(t, false) / 4)]));
  return { tools: tools.length, tokens: tokens(false), tokens_with_output_schema: tokens(true), per_tool };
}
