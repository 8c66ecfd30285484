import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grantsPerVault, ServerTokenStore } from "../../../src/auth/server-tokens.ts";
import { IndxError } from "../../../src/core/errors.ts";

test("globs split per vault: a vault-prefixed glob is that vault's, a bare one every vault's", () => {
  expect(grantsPerVault(["work", "personal"], { read: ["work:Projects/**", "Shared/**"], deny: ["Private/**"] })).toEqual([
    { name: "work", grant: { read: ["Projects/**", "Shared/**"], deny: ["Private/**"] } },
    { name: "personal", grant: { read: ["Shared/**"], deny: ["Private/**"] } },
  ]);
  // A kind given only for another vault leaves this one unlimited in it.
  expect(grantsPerVault(["work", "personal"], { read: ["work:Projects/**"] })).toEqual([
    { name: "work", grant: { read: ["Projects/**"] } },
    { name: "personal" },
  ]);
  // A colon inside a path, or after something that is not a vault name, is part of the glob.
  expect(grantsPerVault(["work", "personal"], { read: ["Notes/a:b.md", "[t]odo:/**"] })[0]).toEqual({
    name: "work",
    grant: { read: ["Notes/a:b.md", "[t]odo:/**"] },
  });
});

test("a prefix naming a vault the token is not for, or a glob the grant rules refuse, is validation_failed", () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err instanceof IndxError ? err.code : "other";
    }
    return "none";
  };
  expect(code(() => grantsPerVault(["work", "personal"], { read: ["wrk:Projects/**"] }))).toBe("validation_failed");
  expect(code(() => grantsPerVault(["work", "personal"], { read: ["work:../x"] }))).toBe("validation_failed");
  expect(code(() => grantsPerVault(["work", "personal"], { write: ["personal:/abs"] }))).toBe("validation_failed");
});

test("one record for several vaults: verified per vault with that vault's grant, revoked once for all", () => {
  const dir = mkdtempSync(join(tmpdir(), "indx-server-tokens-"));
  try {
    const store = new ServerTokenStore(join(dir, "config.toml"));
    const { token, record } = store.create("both", ["vault:read"], [{ name: "work", grant: { read: ["Projects/**"] } }, { name: "personal" }]);
    expect(store.verify(token, "work")).toEqual({ id: record.id, scopes: ["vault:read"], grant: { read: ["Projects/**"] } });
    expect(store.verify(token, "personal")).toEqual({ id: record.id, scopes: ["vault:read"], grant: null });
    expect(store.verify(token, "third")).toBeNull();
    expect(store.verify(`${token}x`, "work")).toBeNull();
    expect(JSON.stringify(store.list())).not.toContain(record.hash);
    expect(store.list("third")).toEqual([]);
    // Another process's revoke is seen on the next check.
    expect(new ServerTokenStore(join(dir, "config.toml")).revoke("both")).toBe(true);
    expect(store.verify(token, "work")).toBeNull();
    expect(() => store.create("one", ["vault:read"], [{ name: "work" }])).toThrow(IndxError);
    // A file cut short is refused whole, never half-read.
    writeFileSync(join(dir, "vault-tokens.json"), '{"tokens":[{"id":"tok_1"}]}');
    expect(() => store.list()).toThrow("vault-tokens.json");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
