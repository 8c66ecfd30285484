import { describe, expect, test } from "bun:test";
import { AI_OP_NAMES, AI_OPERATIONS, type AiOpName } from "../../../src/ai/ops/catalogue.ts";
import { OPERATIONS } from "../../../src/app/registry.ts";

describe("the AI operation names derive from the catalogue", () => {
  test("every AI operation's short name is its registry name without ai_, in the catalogue's order", () => {
    const names: string[] = AI_OPERATIONS.map((op) => op.name);
    expect(names).toEqual(AI_OP_NAMES.map((name) => `ai_${name}`));
    expect(new Set(AI_OP_NAMES).size).toBe(AI_OPERATIONS.length);
  });

  test("the registry serves each of them, and every registered model-using ai_ operation is in the catalogue", () => {
    const registered = OPERATIONS.filter((op) => op.ai !== undefined && op.ai.needs !== "any").map((op) => op.name);
    expect(registered.toSorted()).toEqual(AI_OPERATIONS.map((op) => op.name).toSorted());
  });

  test("the derived type names exactly the catalogue's operations", () => {
    // Compile-time: a name outside the catalogue does not satisfy AiOpName (bun run typecheck).
    const summarize: AiOpName = "summarize";
    // @ts-expect-error ai_status is not a model-using AI operation, so it is not an AiOpName.
    const status: AiOpName = "status";
    expect([summarize, status].filter((n) => AI_OP_NAMES.some((name) => name === n))).toEqual(["summarize"]);
  });
});
