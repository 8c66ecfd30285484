import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { estimateTokens } from "../../../src/providers/tokens.ts";

interface Sample {
  name: string;
  text: string;
  cl100k_base: number;
  o200k_base: number;
  claude_legacy: number;
}

const reference = JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "..", "fixtures", "tokens", "reference-counts.json"), "utf8")) as {
  samples: Sample[];
};

describe("estimateTokens", () => {
  test.each(reference.samples.map((s) => [s.name, s] as const))("never counts fewer tokens than real BPE tokenizers: %s", (_, s) => {
    const real = Math.max(s.cl100k_base, s.o200k_base, s.claude_legacy);
    expect(estimateTokens(s.text)).toBeGreaterThanOrEqual(real);
  });

  test("Latin text is counted at no more than 3 characters a token", () => {
    const word = "information";
    expect(estimateTokens(word)).toBeGreaterThanOrEqual(Math.ceil(word.length / 3));
    const prose = "the quick brown fox jumps over the lazy dog ".repeat(20);
    expect(estimateTokens(prose)).toBeGreaterThanOrEqual(Math.ceil(prose.replace(/\s/g, "").length / 3));
  });

  test("every CJK character counts at least one token", () => {
    for (const text of ["漢字かなカナ한국어", "。、「」", "𠀀𠀁"]) expect(estimateTokens(text)).toBeGreaterThanOrEqual([...text].length);
  });

  test("astral characters are read whole, and nothing is free but the empty string", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("🚀")).toBeGreaterThanOrEqual(3);
    for (const text of ["a", "1", "-", "é", "\n"]) expect(estimateTokens(text)).toBeGreaterThanOrEqual(1);
  });

  test("grows with the text", () => {
    const text = "Apollo launches in May. ";
    expect(estimateTokens(text.repeat(10))).toBeGreaterThan(estimateTokens(text.repeat(5)));
  });
});
