import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Glob } from "bun";
import { AskReply } from "../../../src/ai/ops/ask/prompt.ts";
import { CallerSchema } from "../../../src/ai/ops/extract/caller-schema.ts";
import { extractReply } from "../../../src/ai/ops/extract/prompt.ts";
import { metadataReply } from "../../../src/ai/ops/metadata/fields.ts";
import { RelateReply } from "../../../src/ai/ops/relate/prompt.ts";
import { PartialSummaryReply, SummaryReply } from "../../../src/ai/ops/summarize/prompt.ts";
import { tagReply } from "../../../src/ai/ops/tag/prompt.ts";
import { MocReply, TocDescriptionsReply, TopicReply } from "../../../src/ai/ops/toc/prompt.ts";
import { providerSchema, settleReply } from "../../../src/ai/provider-schema.ts";
import { RERANK_SCHEMA } from "../../../src/search/rerank.ts";
import { strictSchemaProblems } from "../../support/openai-strict.ts";

/**
 * Every reply schema the runtime can send meets OpenAI's strict structured outputs, Anthropic's
 * structured outputs behind a gateway and llama.cpp's grammar limits (docs/decisions.md,
 * "Provider-exact reply schemas"). The list is read from the code: every `schema:` of a model
 * request in src/ must have samples here, so a new reply shape cannot skip this test.
 */

const caller = (schema: unknown) => CallerSchema.check(schema);

/** Each reply schema named at a request site, with the instances it can take. */
const SAMPLES: Record<string, () => object[]> = {
  AskReply: () => [AskReply],
  SummaryReply: () => [SummaryReply],
  PartialSummaryReply: () => [PartialSummaryReply],
  TocDescriptionsReply: () => [TocDescriptionsReply],
  MocReply: () => [MocReply],
  TopicReply: () => [TopicReply],
  RelateReply: () => [RelateReply],
  RERANK_SCHEMA: () => [RERANK_SCHEMA],
  tagReply: () => [tagReply(null), tagReply(["ops", "project/alpha", "area/x"])],
  metadataReply: () => [
    metadataReply([
      { key: "status", type: "enum", enum: ["active", "done"] },
      { key: "due", type: "date" },
      { key: "at", type: "datetime" },
      { key: "n", type: "number", min: 0, max: 10 },
      { key: "flag", type: "boolean" },
      { key: "tags", type: "list", min: 1, max: 5 },
      { key: "owner", type: "string", description: "Who" },
    ]),
  ],
  extractReply: () => [
    extractReply(
      caller({
        type: "object",
        properties: { name: { type: "string", minLength: 1, maxLength: 80 }, when: { type: "string", format: "date" }, n: { type: "integer", minimum: 0 } },
        required: ["name"],
      }),
    ),
    extractReply(
      caller({
        $defs: {
          person: { type: "object", properties: { name: { type: "string" }, role: { oneOf: [{ type: "string" }, { type: "null" }] } }, required: ["name"] },
        },
        type: "array",
        items: { $ref: "#/$defs/person" },
        maxItems: 50,
      }),
    ),
  ],
};

/** The schema expressions of every model request in src/: `schema:` inside a session's json call, `jsonSchema:` of a direct generate. */
async function requestSites(): Promise<{ file: string; name: string }[]> {
  const sites: { file: string; name: string }[] = [];
  for await (const file of new Glob("src/**/*.ts").scan(".")) {
    if (file.endsWith("src/ai/session.ts")) continue; // the transport: it forwards what the sites above pass it
    const text = await Bun.file(file).text();
    if (!/\.(?:json|jsonAccepting)\(\s*\{|\.generate\(\s*\{/.test(text)) continue;
    for (const m of text.matchAll(/^\s+(?:schema|jsonSchema):\s*([A-Za-z_$][\w$]*)/gm)) sites.push({ file, name: m[1]! });
  }
  return sites;
}

/** What a llama.cpp grammar cannot take: a length or count bound (expanded into repetitions). */
function grammarProblems(schema: unknown, at = ""): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(schema)) {
    if (["minLength", "maxLength", "maxItems"].includes(k) || (k === "minItems" && typeof v === "number" && v > 1)) out.push(`${at}/${k}`);
    if (typeof v === "object") out.push(...grammarProblems(v, `${at}/${k}`));
  }
  return out;
}

describe("reply schemas", () => {
  test("every request site in src/ names a reply schema this test walks", async () => {
    const sites = await requestSites();
    expect(sites.length).toBeGreaterThanOrEqual(Object.keys(SAMPLES).length);
    const unknown = sites.filter((s) => !(s.name in SAMPLES));
    expect(unknown).toEqual([]);
    expect(new Set(sites.map((s) => s.name))).toEqual(new Set(Object.keys(SAMPLES)));
  });

  for (const [name, samples] of Object.entries(SAMPLES))
    test(`${name}: as sent, valid for OpenAI strict mode, Anthropic and llama.cpp grammars`, () => {
      for (const schema of samples()) {
        const sent = providerSchema(schema);
        expect(sent.strict).toBe(true);
        expect(strictSchemaProblems(sent.schema, "openai")).toEqual([]);
        expect(strictSchemaProblems(sent.schema, "anthropic")).toEqual([]);
        expect(grammarProblems(sent.schema)).toEqual([]);
      }
    });

  test("the strict checker refuses what OpenAI refuses", () => {
    const ok = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    expect(strictSchemaProblems(ok)).toEqual([]);
    expect(strictSchemaProblems({ ...ok, additionalProperties: undefined })[0]).toContain("'additionalProperties' is required");
    expect(strictSchemaProblems({ ...ok, required: [] })[0]).toContain("Missing 'a'");
    expect(strictSchemaProblems({ ...ok, properties: { a: { type: "string", maxLength: 20 } } })[0]).toContain("'maxLength' is not permitted");
    expect(strictSchemaProblems({ ...ok, properties: { a: { type: "string", default: "x" } } })[0]).toContain("'default' is not permitted");
    expect(strictSchemaProblems({ ...ok, properties: { a: {} } })[0]).toContain("must have a 'type'");
    expect(strictSchemaProblems({ anyOf: [ok] })[0]).toContain('type: "object"');
    expect(strictSchemaProblems({ ...ok, properties: { a: { type: "number", maximum: 1 } } }, "anthropic")[0]).toContain("'maximum' is not permitted");
  });

  test("a reply read back through the sent schema: nulls of optional keys dropped, bounds applied", () => {
    const schema = Type.Object({
      note: Type.Optional(Type.String({ maxLength: 3 })),
      also: Type.Optional(Type.String()),
      items: Type.Array(Type.String(), { maxItems: 2 }),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
    });
    expect(providerSchema(schema).schema.required).toEqual(["note", "also", "items", "confidence"]);
    const settled = settleReply(schema, { note: "abcdef", also: null, items: ["a", "b", "c"], confidence: 1.5 });
    expect(settled).toEqual({ note: "abc", items: ["a", "b"], confidence: 1 });
    expect(Value.Check(schema, settled)).toBe(true);
  });

  test("a caller's untyped subschema is sent without strict", () => {
    const sent = providerSchema(extractReply(caller({ type: "object", properties: { anything: {} } })));
    expect(sent.strict).toBe(false);
  });
});
