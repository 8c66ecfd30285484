import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { OPERATION_BY_NAME } from "../../src/app/registry.ts";
import { TokenStore } from "../../src/auth/tokens.ts";
import { IndxError } from "../../src/core/errors.ts";
import { validateGrantSpec } from "../../src/ops/grant.ts";
import { compileGrant } from "../../src/vault/grant.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

describe("the grant model (docs/permissions.md)", () => {
  const g = compileGrant({ read: ["Projects/**"], write: ["Inbox/**"], deny: ["Projects/Secret/**"] });
  if (!g) throw new Error("a grant with globs compiles");

  test("deny wins, write implies read, the rest is hidden", () => {
    expect(g.canRead("Projects/Plan.md")).toBe(true);
    expect(g.canWrite("Projects/Plan.md")).toBe(false);
    expect(g.canRead("Inbox/Draft.md")).toBe(true);
    expect(g.canWrite("Inbox/Draft.md")).toBe(true);
    expect(g.canRead("Projects/Secret/Plan.md")).toBe(false);
    expect(g.canRead("Personal/Diary.md")).toBe(false);
  });

  test("a note is the same note with or without .md, as a chunk id, in any case for deny, and through ./ or //", () => {
    expect(g.canRead("Projects/Secret/Plan")).toBe(false);
    expect(g.canRead("projects/secret/Plan.md")).toBe(false);
    expect(g.canRead("Projects/Secret/Plan.md#3")).toBe(false);
    expect(g.canRead("./Projects//Secret/Plan.md")).toBe(false);
    expect(g.canRead("Projects/Plan.md#0")).toBe(true);
  });

  test("no globs is no grant; deny alone hides only what it names; write alone reads everything", () => {
    expect(compileGrant({})).toBeNull();
    expect(compileGrant({ deny: [] })).toBeNull();
    const deny = compileGrant({ deny: ["Journal/**"] });
    expect(deny?.canRead("Projects/x.md")).toBe(true);
    expect(deny?.canWrite("Projects/x.md")).toBe(true);
    expect(deny?.canRead("Journal/x.md")).toBe(false);
    const write = compileGrant({ write: ["Inbox/**"] });
    expect(write?.canRead("Journal/x.md")).toBe(true);
    expect(write?.canWrite("Journal/x.md")).toBe(false);
  });

  test("globs are vault-relative and bounded", () => {
    for (const bad of ["/etc/**", "../x/**", "a/../b", "C:/x", "a\\b", "", "x".repeat(300), "a\u0000b"])
      expect(() => validateGrantSpec({ read: [bad] })).toThrow(IndxError);
    expect(() => validateGrantSpec({ read: Array.from({ length: 33 }, (_, i) => `F${i}/**`) })).toThrow(IndxError);
    expect(() => compileGrant({ read: ["[z-a]"] })).toThrow(IndxError);
  });

  test("a token keeps its grant (and only the hash of itself); verify hands it back", () => {
    sb = sandbox();
    const store = new TokenStore(sb.dataDir);
    const { token, record } = store.create("drafter", ["vault:read", "vault:write"], { read: ["Projects/**"], write: ["Inbox/**"] });
    expect(record.grant).toEqual({ read: ["Projects/**"], write: ["Inbox/**"] });
    expect(new TokenStore(sb.dataDir).verify(token, null)?.grant).toEqual({ read: ["Projects/**"], write: ["Inbox/**"] });
    expect(store.create("all", ["vault:read"]).record.grant).toBeUndefined();
  });
});

describe("indx token create --read/--write/--deny, indx token list", () => {
  test("creates a granted token and lists its globs; a bad glob is refused", async () => {
    sb = sandbox({ "a.md": "# a\n" });
    const run = async (...args: string[]) => {
      const p = Bun.spawn(["bun", MAIN, ...args], { env: sb?.env, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { stdout, stderr, code };
    };
    const made = await run(
      "token",
      "create",
      "--name",
      "drafter",
      "--scopes",
      "vault:read,vault:write",
      "--read",
      "Projects/**",
      "--read",
      "Reference/**",
      "--write",
      "Inbox/**",
      "--deny",
      "Projects/Secret/**",
      "--json",
    );
    expect(made.code).toBe(0);
    const created = JSON.parse(made.stdout);
    expect(created.grant).toEqual({ read: ["Projects/**", "Reference/**"], write: ["Inbox/**"], deny: ["Projects/Secret/**"] });
    const listed = JSON.parse((await run("token", "list", "--json")).stdout);
    expect(listed[0].grant).toEqual(created.grant);
    expect(JSON.stringify(listed)).not.toContain("hash");
    const bad = await run("token", "create", "--name", "x", "--read", "../up/**");
    expect(bad.code).toBe(2);
  }, 30_000);
});

describe("index.obsidian_excluded: Obsidian's Excluded files left out of the index", () => {
  const files = {
    ".obsidian/app.json": JSON.stringify({ userIgnoreFilters: ["Templates/", "/^Archive/.*\\.md$/"] }),
    "Templates/Meeting.md": "# Meeting template\n",
    "Archive/Old.md": "# Old\n",
    "Notes/Kept.md": "# Kept\n",
  };
  const paths = async (env: Record<string, string>) => {
    sb = sandbox(files);
    Object.assign(sb.env, env);
    const ctx = sb.context();
    await invoke(OPERATION_BY_NAME.get("vault_reindex")!, ctx, {});
    const listed = (await invoke(OPERATION_BY_NAME.get("note_list")!, ctx, {})) as { notes: { path: string }[] };
    ctx.close();
    return listed.notes.map((n) => n.path).sort();
  };

  test("off (the default): Obsidian's excluded files are indexed as before", async () => {
    expect(await paths({})).toEqual(["Archive/Old.md", "Notes/Kept.md", "Templates/Meeting.md"]);
  });

  test("on: a folder prefix and a /regex/ both exclude", async () => {
    expect(await paths({ INDX_OBSIDIAN_EXCLUDED: "true" })).toEqual(["Notes/Kept.md"]);
  });
});
