import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../app/context.ts";
import { OPERATIONS } from "../app/registry.ts";
import type { AnyOperation, Scope } from "../ops/define.ts";
import { hasScope } from "../ops/invoke.ts";
import { formFor } from "../ops/read-only-form.ts";
import { compactInputSchema, type JsonObject, sharedTypesOnce } from "./compact-schema.ts";

/** TypeBox schemas are JSON Schema plus symbol keys; a JSON round trip leaves the plain schema. */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as JsonObject;

const toolCache = new Map<string, Tool>();

const ALL_SCOPES: ReadonlySet<Scope> = new Set(["vault:admin"]);

/**
 * The tool profiles `mcp.tools` names (docs/mcp.md, Tools): `core` is what most agent turns use —
 * find, read, change, list and follow links — in a third of the whole catalogue's tokens.
 */
export const TOOL_PROFILES: Readonly<Record<string, readonly string[]>> = {
  core: ["vault_search", "note_read", "note_write", "note_patch", "note_list", "link_backlinks"],
};

/**
 * Writes that a repeat with the same input leaves as the first call left them (MCP
 * idempotentHint): a whole-file write, a delete, a move or rename (the second finds nothing left
 * to do), a config value, an index update, a daily note made only if missing. A patch (append
 * again), a capture or attachment (a new file each time) and a canvas patch (adds again) are not.
 */
const REPEATABLE_WRITES = new Set(["note_write", "note_delete", "note_move", "tag_rename", "canvas_write", "vault_config_set", "vault_reindex", "daily_note"]);

/** An operation as an MCP tool: generated, never hand-written (docs/mcp.md, Tools); its inputSchema compacted for the agent. */
export function toolOf(op: AnyOperation): Tool {
  return sharedTypesOnce([toolFor(op, ALL_SCOPES) as Tool & { inputSchema: JsonObject }])[0] ?? toolFor(op, ALL_SCOPES);
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
      inputSchema: { ...compactInputSchema(plain(form.input)), type: "object" },
      outputSchema: { ...plain(op.output), type: "object" },
      annotations: {
        title: op.title,
        readOnlyHint: form.readOnly,
        idempotentHint: op.safe || REPEATABLE_WRITES.has(op.name),
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
 * The tool names `mcp.tools` lists (profiles expanded), or null for every tool. An unknown name
 * matches nothing: the configuration's own check refuses anything that is not a name.
 */
function chosenTools(ctx: App | undefined): Set<string> | null {
  const items = ctx?.vault.config.list("mcp.tools") ?? ["all"];
  if (items.length === 0 || items.includes("all")) return null;
  return new Set(items.flatMap((item) => TOOL_PROFILES[item] ?? [item]));
}

/**
 * The tools a caller with these scopes may see: the others are not advertised at all, nor are AI
 * tools whose model role this vault has not configured (docs/contracts.md, AI runtime), nor tools
 * the vault's `mcp.tools` leaves out. A shared type is given in full in the first tool that takes it.
 */
export function visibleTools(scopes: ReadonlySet<Scope>, ctx?: App, opts: { profile?: boolean } = {}): Tool[] {
  const chosen = opts.profile === false ? null : chosenTools(ctx);
  const tools = OPERATIONS.filter(
    (op) => hasScope(scopes, op.scope) && (!op.ai || ctx?.ai.offers(op.ai.needs) === true) && (chosen === null || chosen.has(op.name)),
  ).map((op) => toolFor(op, scopes, ctx !== undefined && sendsElsewhere(op, ctx)));
  return sharedTypesOnce(tools as (Tool & { inputSchema: JsonObject })[]);
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

/** What an agent reads of a tool on every turn: its name, description and inputSchema. */
export const toolText = (t: Tool, withOutput = false) =>
  JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema, ...(withOutput ? { outputSchema: t.outputSchema } : {}) });

/** The catalogue a session with these scopes sees, measured in tokens (chars/4; scripts/bench/catalogue.ts counts o200k tokens). */
export function catalogueSize(scopes: ReadonlySet<Scope>, ctx?: App): CatalogueSize {
  const tools = visibleTools(scopes, ctx);
  const tokens = (withOutput: boolean) => Math.round(tools.reduce((sum, t) => sum + toolText(t, withOutput).length, 0) / 4);
  const per_tool = Object.fromEntries(tools.map((t) => [t.name, Math.round(toolText(t).length / 4)]));
  return { tools: tools.length, tokens: tokens(false), tokens_with_output_schema: tokens(true), per_tool };
}
