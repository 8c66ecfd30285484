import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { randomHex, sha256Hex } from "../../../src/core/random.ts";

describe("random and hashing without node:crypto", () => {
  test("sha256Hex is node:crypto's SHA-256 of the UTF-8 bytes (idempotency keys and AI cache keys stay the same)", () => {
    for (const text of ["", "abc", '{"a":1,"b":[2,3]}', "Ünïcödé — 日本語 🙂"]) expect(sha256Hex(text)).toBe(createHash("sha256").update(text).digest("hex"));
  });

  test("randomHex gives that many bytes of lowercase hex, different each time", () => {
    const a = randomHex(6);
    expect(a).toMatch(/^[0-9a-f]{12}$/);
    expect(new Set(Array.from({ length: 20 }, () => randomHex(6))).size).toBe(20);
  });
});
