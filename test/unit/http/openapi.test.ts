import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { ERROR_CODES, type ErrorCode } from "../../../src/core/errors.ts";
import { buildOpenApi } from "../../../src/http/openapi.ts";
import { ROUTES, templateOf } from "../../../src/http/routes.ts";
import { vaultStatus } from "../../../src/maintenance/ops.ts";
import { errorsOf } from "../../../src/ops/define.ts";
import { sandbox } from "../../support/vault.ts";

type Operation = {
  responses: Record<string, { content?: Record<string, { example?: { error?: { code: string } } }> }>;
  requestBody?: { content: Record<string, { example?: unknown }> };
};
/** With a chat model configured, so the AI routes are in the document too. */
const withChat = sandbox();
Object.assign(withChat.env, { INDX_AI_PROVIDER: "ollama", INDX_AI_MODEL: "any-chat-model" });
const spec = buildOpenApi(withChat.context()) as { paths: Record<string, Record<string, Operation>> };
const operationOf = (method: string, path: string) => spec.paths[path]![method.toLowerCase()]!;

describe("OpenAPI responses", () => {
  test("PUT lists 201 for a created file beside 200", () => {
    for (const path of ["/v1/notes/{path}", "/v1/canvas/{path}"])
      expect(Object.keys(operationOf("PUT", path).responses)).toEqual(expect.arrayContaining(["200", "201", "412"]));
  });

  test("GETs list neither 412 nor 415: they take no If-Match and no body", () => {
    for (const r of ROUTES.filter((r) => r.method === "GET")) {
      const statuses = Object.keys(operationOf("GET", templateOf(r)).responses);
      expect(statuses).not.toContain("412");
      expect(statuses).not.toContain("415");
      expect(statuses).toEqual(expect.arrayContaining(["200", "400", "401", "403", "429", "500"]));
    }
    expect(Object.keys(operationOf("GET", "/v1/notes/{path}").responses)).toEqual(expect.arrayContaining(["304", "404", "413", "422", "503"]));
    // vault_status answers without an index: its one 503 is the vault folder gone, never index_missing.
    expect(errorsOf(vaultStatus)).not.toContain("index_missing");
    expect(errorsOf(vaultStatus)).toContain("vault_missing");
  });

  test("each error example carries a code of its own status (the 401 example is unauthorized)", () => {
    for (const r of ROUTES)
      for (const [status, response] of Object.entries(operationOf(r.method, templateOf(r)).responses)) {
        const code = response.content?.["application/json"]?.example?.error?.code;
        if (Number(status) < 400) continue;
        expect(code).toBeDefined();
        expect(String(ERROR_CODES[code as ErrorCode].http)).toBe(status);
      }
    expect(operationOf("GET", "/v1/search").responses["401"]!.content!["application/json"]!.example!.error!.code).toBe("unauthorized");
  });

  test("an upload route also takes the raw file; other bodies are JSON only", () => {
    expect(Object.keys(operationOf("POST", "/v1/attachments").requestBody!.content)).toEqual(["application/json", "application/octet-stream"]);
    expect(Object.keys(operationOf("PUT", "/v1/notes/{path}").requestBody!.content)).toEqual(["application/json"]);
  });

  test("every request body has an example that its operation accepts", () => {
    for (const r of ROUTES.filter((r) => r.input === "body")) {
      const example = operationOf(r.method, templateOf(r)).requestBody!.content["application/json"]!.example as Record<string, unknown>;
      const input = r.wildParam ? { ...example, [r.wildParam]: example[r.wildParam] ?? "Projects/Apollo Launch.md" } : example;
      expect(Value.Check(r.op.input, input)).toBe(true);
    }
  });
});
