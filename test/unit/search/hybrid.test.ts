import { describe, expect, test } from "bun:test";
import { BONUS_FIRST, BONUS_TOP3, fuse, maxFused, RRF_K } from "../../../src/search/hybrid.ts";
import { blend, blendWeight } from "../../../src/search/rerank.ts";

const c = (chunkId: number, fileId: number) => ({ chunkId, fileId });

describe("reciprocal rank fusion", () => {
  test("scores are Σ 1/(k + rank + 1) with k = 60, plus the top-rank bonus", () => {
    const [top, second] = fuse([
      [c(1, 10), c(2, 20)],
      [c(2, 20), c(1, 10)],
    ]);
    expect(RRF_K).toBe(60);
    // Both chunks are #1 in one list and #2 in the other: same sum, same bonus; tie breaks on note id.
    expect(top!.fileId).toBe(10);
    expect(top!.fused).toBeCloseTo(1 / 61 + 1 / 62 + BONUS_FIRST, 10);
    expect(second!.fused).toBeCloseTo(top!.fused, 10);
  });

  test("the bonus keeps a #1 exact match above a note that is merely good in both lists", () => {
    const lexical = [c(1, 1), c(2, 2), c(3, 3), c(4, 4)];
    const vector = [c(5, 5), c(6, 6), c(4, 4), c(2, 2)];
    const fused = fuse([lexical, vector]);
    expect(fused[0]!.fileId).toBe(1);
    const two = fused.find((n) => n.fileId === 2)!;
    expect(two.fused).toBeCloseTo(1 / 62 + 1 / 64 + BONUS_TOP3, 10);
    expect(two.ranks).toEqual([2, 4]);
  });

  test("a list of sections counts each note once, at its best section", () => {
    const fused = fuse([
      [c(11, 1), c(21, 2), c(12, 1)],
      [c(12, 1), c(22, 2)],
    ]);
    expect(fused.map((n) => n.fileId)).toEqual([1, 2]);
    const note1 = fused[0]!;
    // note 1: #1 in both lists; note 2: #2 in both (its chunk 12 is not a second entry of note 1).
    expect(note1.fused).toBeCloseTo(2 / 61 + BONUS_FIRST, 10);
    expect(note1.ranks).toEqual([1, 1]);
    expect(fused[1]!.ranks).toEqual([2, 2]);
    expect(note1.fused).toBeLessThanOrEqual(maxFused([1, 1]));
  });

  test("a note shows the section of the list where it ranks best", () => {
    const lexical = [
      { fileId: 1, chunkId: null },
      { fileId: 2, chunkId: null },
    ];
    const fused = fuse([lexical, [c(21, 2), c(12, 1)]]);
    expect(fused.find((n) => n.fileId === 1)!.chunkId).toBeNull(); // lexical #1, semantic #2
    expect(fused.find((n) => n.fileId === 2)!.chunkId).toBe(21); // lexical #2, semantic #1
  });

  test("an empty list changes nothing", () => {
    expect(fuse([[c(1, 1)], []]).map((n) => n.fileId)).toEqual([1]);
    expect(fuse([[], []])).toEqual([]);
  });
});

describe("position-aware blending", () => {
  test("75% retrieval for ranks 1–3, 60% for 4–10, 40% below", () => {
    expect([1, 3, 4, 10, 11, 30].map(blendWeight)).toEqual([0.75, 0.75, 0.6, 0.6, 0.4, 0.4]);
    const b = blend([1, 0.9, 0.8, 0.5], [0, 0, 0, 1]);
    expect(b[0]).toBeCloseTo(0.75);
    expect(b[3]).toBeCloseTo(0.6 * 0.5 + 0.4);
  });
});
