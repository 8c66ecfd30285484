import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileDotWat } from "../../../scripts/wasm-compile.ts";
import { DOT_WASM_BASE64 } from "../../../src/embeddings/dot-wasm.ts";
import { VectorMatrix } from "../../../src/embeddings/matrix.ts";
import { normalize } from "../../../src/embeddings/store.ts";

let seed = 7;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648 - 0.5;
};
const randomVector = (dim: number) => normalize(Array.from({ length: dim }, rand));

function exactTop(vectors: Map<string, Float32Array>, q: Float32Array, k: number, allowed?: Set<string>) {
  return [...vectors]
    .filter(([h]) => !allowed || allowed.has(h))
    .map(([hash, v]) => ({ hash, score: v.reduce((s, x, i) => s + x * q[i]!, 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((x) => x.hash);
}

describe("VectorMatrix (exact SIMD scan)", () => {
  test("the committed wasm bytes are dot.wat compiled", async () => {
    const wat = readFileSync(join(import.meta.dir, "../../../src/embeddings/dot.wat"), "utf8");
    expect(await compileDotWat(wat)).toBe(DOT_WASM_BASE64);
  });

  for (const dim of [3, 16, 100, 768]) {
    test(`finds the exact top k at ${dim} dimensions, through growth, removal and filters`, () => {
      const m = new VectorMatrix(dim);
      const vectors = new Map<string, Float32Array>();
      for (let i = 0; i < 2500; i++) {
        const v = randomVector(dim);
        vectors.set(`h${i}`, v);
        m.add(`h${i}`, v);
      }
      m.add("h1", randomVector(dim)); // a known hash is kept as it was
      for (let i = 0; i < 2500; i += 7) {
        vectors.delete(`h${i}`);
        m.remove(`h${i}`);
      }
      expect(m.size).toBe(vectors.size);
      for (let t = 0; t < 5; t++) {
        const q = randomVector(dim);
        const got = m.nearest(q, 10);
        expect(got.map((h) => h.hash)).toEqual(exactTop(vectors, q, 10));
        const top = vectors.get(got[0]!.hash)!;
        expect(got[0]!.distance).toBeCloseTo(1 - top.reduce((s, x, i) => s + x * q[i]!, 0), 4);
        const allowed = new Set([...vectors.keys()].filter((_, i) => i % 3 === 0));
        expect(m.nearest(q, 5, allowed).map((h) => h.hash)).toEqual(exactTop(vectors, q, 5, allowed));
      }
    });
  }

  test("empty matrix, k of zero, k above the size", () => {
    const m = new VectorMatrix(8);
    expect(m.nearest(randomVector(8), 5)).toEqual([]);
    m.add("a", randomVector(8));
    expect(m.nearest(randomVector(8), 0)).toEqual([]);
    expect(m.nearest(randomVector(8), 10).map((h) => h.hash)).toEqual(["a"]);
  });
});
