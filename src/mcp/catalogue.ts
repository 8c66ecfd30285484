import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyOperation, Scope } from "../ops/define.ts";
import { hasScope } from "../ops/invoke.ts";
import { OPERATIONS } from "../ops/registry.ts";

/** TypeBox schemas are JSON Schema plus symbol keys; a JSON round trip leaves the plain schema. */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as { type: "object"; [k: string]: unknown };

const toolCache = new Map<string, Tool>();

/** An operation as an MCP tool: generated, never hand-written (docs/mcp.md, Tools). */
export function toolOf(op: AnyOperation): Tool {
  let tool = toolCache.get(op.name);
  if (!tool) {
    tool = {
      name: op.name,
      title: op.title,
      description: op.description,
      inputSchema: plain(op.input),
      outputSchema: plain(op.output),
      annotations: {
        title: op.title,
        readOnlyHint: op.safe,
        idempotentHint: op.safe,
        destructiveHint: op.destructive === true,
        openWorldHint: false,
      },
      _meta: { "indx/scope": op.scope },
    };
    toolCache.set(op.name, tool);
  }
  return tool;
}

/** The tools a caller with these scopes may see: the others are not advertised at all. */
export function visibleTools(scopes: ReadonlySet<Scope>): Tool[] {
  return OPERATIONS.filter((op) => hasScope(scopes, op.scope)).map(toolOf);
}
