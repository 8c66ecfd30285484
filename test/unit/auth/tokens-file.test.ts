import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TokenStore } from "../../../src/auth/tokens.ts";
import { IndxError } from "../../../src/core/errors.ts";

/** tokens.json is read back checked against its schema: a hand-edited file never half-works. */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storeWith(contents: string): TokenStore {
  const dir = mkdtempSync(join(tmpdir(), "indx-tokens-"));
  dirs.push(dir);
  writeFileSync(join(dir, "tokens.json"), contents);
  return new TokenStore(dir);
}

const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return null;
};

describe("tokens.json read back", () => {
  const token = { id: "tok_1", name: "ci", scopes: ["vault:read"], hash: "a".repeat(64), created_at: "2026-11-27T00:00:00.000Z" };

  test("a token without its hash, or with a scope indx does not know, is a typed error, not a crash or a grant", () => {
    for (const bad of [
      { ...token, hash: undefined },
      { ...token, scopes: ["vault:everything"] },
      { ...token, scopes: "vault:admin" },
    ]) {
      const err = failure(() => storeWith(JSON.stringify({ tokens: [bad] })).verify("indx_presented", null));
      expect(err).toBeInstanceOf(IndxError);
      expect((err as IndxError).code).toBe("internal");
      expect((err as IndxError).message).toContain("tokens.json");
    }
  });

  test("a file indx wrote still works", () => {
    expect(storeWith(JSON.stringify({ tokens: [token] })).list()).toEqual([{ id: "tok_1", name: "ci", scopes: ["vault:read"], created_at: token.created_at }]);
    expect(storeWith(JSON.stringify({ tokens: [token] })).verify("indx_presented", null)).toBeNull();
  });
});

describe("tokens.json written", () => {
  // /dev/full answers every write with ENOSPC: a temp file that points there is a full disk.
  test.skipIf(!existsSync("/dev/full"))("a write that fails (a full disk) leaves no tokens.json.<pid>.tmp beside it, and the file as it was", () => {
    const dir = mkdtempSync(join(tmpdir(), "indx-tokens-"));
    dirs.push(dir);
    const store = new TokenStore(dir);
    store.create("first", ["vault:read"]);
    const before = readFileSync(join(dir, "tokens.json"), "utf8");
    symlinkSync("/dev/full", join(dir, `tokens.json.${process.pid}.tmp`));
    expect((failure(() => store.create("second", ["vault:read"])) as { code?: string } | null)?.code).toBe("ENOSPC");
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(readFileSync(join(dir, "tokens.json"), "utf8")).toBe(before);
  });
});
