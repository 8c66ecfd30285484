import { OPERATION_BY_NAME } from "../../src/app/registry.ts";
import { vaultUri } from "../../src/mcp/uris.ts";
import { inputsFor } from "./grant-leak.ts";

/**
 * What the leak suite asks of an MCP client, whichever era it speaks: the 1.x SDK's client in a
 * 2025-11-25 session and the 2.x client pinned to 2026-07-28 both fit (docs/permissions.md).
 */
type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

export interface SweepClient {
  getInstructions(): string | undefined;
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<unknown>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  listPrompts(): Promise<{ prompts: { name: string; arguments?: { name: string }[] }[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<unknown>;
  complete(params: { ref: CompletionRef; argument: { name: string; value: string } }): Promise<unknown>;
}

/** Records a leak if `answer` holds a canary its `input` did not. */
export type LeakCheck = (where: string, answer: unknown, input?: unknown) => void;

/** URIs read beyond what resources/list offers: hidden notes and bases by name, and the derived views. */
const EXTRA_URIS = [
  vaultUri("Personal/Diary zqcanary01.md"),
  vaultUri("Projects/Secret/Plan zqcanary09.md"),
  "vault://graph",
  "vault://tags",
  "vault://search?q=alpha%20goals",
  "vault://graph/backlinks/Projects/Alpha.md",
  "vault://graph/forward/Projects/Alpha.md",
  "vault://base/Projects/All.base",
  "vault://base/Personal/zqcanary05.base",
  // AI resources are derived through the caller's view; a result cached for another caller must not answer.
  "ai://summary/glob/**",
  "ai://moc/tag/shared",
  `ai://summary/note/${encodeURIComponent("Personal/Diary zqcanary01.md")}`,
];

/** Everything an MCP client can ask, asked as the granted token; every answer and error checked. */
export async function mcpSweep(client: SweepClient, via: string, check: LeakCheck): Promise<void> {
  check(`${via} instructions`, client.getInstructions() ?? "");
  for (const tool of (await client.listTools()).tools) {
    const op = OPERATION_BY_NAME.get(tool.name);
    if (!op) continue;
    // Not caught: a tool's refusal is an isError result, and a result off its schema must fail the test.
    for (const input of inputsFor(op)) check(`${via} tool ${tool.name}`, await client.callTool({ name: tool.name, arguments: input }), input);
  }
  const listed = await client.listResources();
  check(`${via} resources/list`, listed);
  for (const uri of [...listed.resources.map((r) => r.uri), ...EXTRA_URIS]) {
    try {
      check(`${via} read ${uri}`, await client.readResource({ uri }), uri);
    } catch (err) {
      check(`${via} read ${uri} (error)`, String(err), [uri, decodeURIComponent(uri).replace(/^(vault:\/\/(base\/)?|ai:\/\/[a-z]+\/[a-z]+\/)/, "")]);
    }
  }
  const templates = await client.listResourceTemplates();
  check(`${via} templates`, templates);
  const prompts = (await client.listPrompts()).prompts;
  for (const prompt of prompts) {
    const args = Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, a.name === "date" ? "2026-01-01" : "3"]));
    try {
      check(`${via} prompt ${prompt.name}`, await client.getPrompt({ name: prompt.name, arguments: args }));
    } catch (err) {
      check(`${via} prompt ${prompt.name} (error)`, String(err));
    }
  }
  const completions: { ref: CompletionRef; name: string; values: string[] }[] = [
    ...prompts.flatMap((p) =>
      (p.arguments ?? []).map((a) => ({ ref: { type: "ref/prompt" as const, name: p.name }, name: a.name, values: ["", "P", "z", "2026"] })),
    ),
    ...templates.resourceTemplates.flatMap((t) =>
      (t.uriTemplate.match(/[a-z_]+(?=[,}])/g) ?? []).map((name) => ({
        ref: { type: "ref/resource" as const, uri: t.uriTemplate },
        name,
        values: ["", "P", "z", "s"],
      })),
    ),
  ];
  for (const { ref, name, values } of completions)
    for (const value of values) {
      const where = `${via} complete ${"name" in ref ? ref.name : ref.uri} ${name}=${value}`;
      try {
        check(where, await client.complete({ ref, argument: { name, value } }), value);
      } catch (err) {
        check(`${where} (error)`, String(err), value);
      }
    }
}
