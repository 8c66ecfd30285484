import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VectorStore } from "../../src/embeddings/store.ts";
import { fakeEmbedding } from "../support/fake-ai-server.ts";

/** vectors.db on a real SQLite file with sqlite-vec loaded. */
const dirs: string[] = [];
const stores: VectorStore[] = [];
function fresh(): VectorStore {
  const dir = mkdtempSync(join(tmpdir(), "indx-vec-"));
  dirs.push(dir);
  const s = VectorStore.open(dir);
  stores.push(s);
  return s;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const WORDS = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
let seed = 99;
const rnd = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() ** 1.5 * WORDS.length)]).join(" ");

describe("vector store", () => {
  test("identity is recorded once; another one is refused", () => {
    const s = fresh();
    expect(s.identity()).toBeNull();
    expect(s.mismatch({ provider: "ollama", model: "m" })).toBeNull();
    s.initIdentity({ provider: "ollama", model: "m", dim: 4 });
    expect(s.identity()).toEqual({ provider: "ollama", model: "m", dim: 4 });
    expect(s.mismatch({ provider: "ollama", model: "other" })).toContain("ollama/m (4 dimensions)");
    expect(s.mismatch({ provider: "ollama", model: "m" }, 8)).toContain("8");
    expect(() => s.initIdentity({ provider: "openai", model: "m", dim: 4 })).toThrow(/--reembed/);
  });

  test("put keeps the first vector of a hash; prune drops the dead ones", () => {
    const s = fresh();
    s.initIdentity({ provider: "ollama", model: "m", dim: 3 });
    expect(
      s.put([
        { hash: "a", vector: [1, 0, 0] },
        { hash: "b", vector: [0, 1, 0] },
      ]),
    ).toBe(2);
    expect(s.put([{ hash: "a", vector: [0, 0, 1] }])).toBe(0);
    expect(s.nearest([1, 0.1, 0], 1)[0]!.hash).toBe("a");
    expect(s.prune(new Set(["b"]))).toBe(1);
    expect([...s.hashes()]).toEqual(["b"]);
    expect(s.nearest([1, 0, 0], 5).map((h) => h.hash)).toEqual(["b"]);
  });

  test("above 4,000 vectors the int8 coarse pass finds what an exact scan finds", () => {
    const s = fresh();
    const dim = 64;
    s.initIdentity({ provider: "ollama", model: "m", dim });
    const docs = Array.from({ length: 4500 }, (_, i) => ({ hash: `h${i}`, vector: fakeEmbedding(text(40), dim) }));
    s.put(docs);
    expect(s.count()).toBe(4500);
    let found = 0;
    for (let i = 0; i < 20; i++) {
      const q = fakeEmbedding(text(6), dim);
      const exact = s
        .nearest(
          q,
          10,
          docs.map((d) => d.hash),
        )
        .map((h) => h.hash); // `only` scores exactly
      const got = new Set(s.nearest(q, 10).map((h) => h.hash));
      found += exact.filter((h) => got.has(h)).length;
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.9);
  });
});

/** macOS's system SQLite cannot load sqlite-vec: the same store, scanned exactly without it. */
describe("vector store without sqlite-vec", () => {
  function openAt(dir: string, extension: boolean): VectorStore {
    const s = VectorStore.open(dir, { extension });
    stores.push(s);
    return s;
  }
  function freshDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "indx-vec-"));
    dirs.push(dir);
    return dir;
  }

  test("stores, prunes and finds the exact nearest vectors, above 4,000 too", () => {
    const s = openAt(freshDir(), false);
    const dim = 32;
    s.initIdentity({ provider: "ollama", model: "m", dim });
    const docs = Array.from({ length: 4200 }, (_, i) => ({ hash: `h${i}`, vector: fakeEmbedding(text(30), dim) }));
    expect(s.put(docs)).toBe(4200);
    for (let i = 0; i < 5; i++) {
      const q = fakeEmbedding(text(5), dim);
      const exact = s.nearest(
        q,
        10,
        docs.map((d) => d.hash),
      );
      expect(s.nearest(q, 10)).toEqual(exact);
      expect(exact).toHaveLength(10);
    }
    const self = s.nearest(docs[7]!.vector, 1)[0]!;
    expect(self.hash).toBe("h7");
    expect(self.distance).toBeCloseTo(0, 5);
    expect(s.prune(new Set(["h1", "h2"]))).toBe(4198);
    expect(
      s
        .nearest(docs[7]!.vector, 5)
        .map((h) => h.hash)
        .sort(),
    ).toEqual(["h1", "h2"]);
  });

  test("vectors written without the extension reach the KNN table once it loads again", () => {
    const dir = freshDir();
    const dim = 16;
    const withVec = openAt(dir, true);
    withVec.initIdentity({ provider: "ollama", model: "m", dim });
    const docs = Array.from({ length: 4100 }, (_, i) => ({ hash: `h${i}`, vector: fakeEmbedding(text(20), dim) }));
    withVec.put(docs.slice(0, 100));
    withVec.close();
    stores.splice(stores.indexOf(withVec), 1);

    const without = openAt(dir, false);
    without.put(docs.slice(100));
    without.close();
    stores.splice(stores.indexOf(without), 1);

    // Above 4,000 vectors nearest() takes the int8 KNN, which now has to know the later ones.
    const again = openAt(dir, true);
    expect(again.count()).toBe(4100);
    expect(again.nearest(docs[4050]!.vector, 1)[0]!.hash).toBe("h4050");
  });
});
