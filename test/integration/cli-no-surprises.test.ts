import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "../../src/core/version.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** The CLI never surprises (issue 29): writes plan first, flags are checked, errors name the rule, empty lists look alike. */

const MAIN = `${import.meta.dir}/../../src/main.ts`;
let sb: Sandbox;

function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { env: { ...process.env, ...sb.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

beforeAll(() => {
  sb = sandbox({ "A.md": "# A\n\n#alpha here\n", "B.md": "---\ntags: [alpha]\n---\n# B\n", "Lonely.md": "# Lonely\n" });
  expect(run(["vault", "index"]).code).toBe(0);
});
afterAll(() => sb?.cleanup());

describe("writes across the vault plan first", () => {
  test("tag rename without --yes or --plan-etag writes nothing and prints the plan; --plan-etag applies it", () => {
    const plan = run(["tag", "rename", "alpha", "beta", "--json"]);
    expect(plan.code).toBe(0);
    const out = JSON.parse(plan.stdout) as { dry_run: boolean; plan_etag: string; notes: number };
    expect(out.dry_run).toBe(true);
    expect(out.notes).toBe(2);
    expect(plan.stderr).toContain("--plan-etag");
    expect(readFileSync(join(sb.vault, "A.md"), "utf8")).toContain("#alpha");
    const applied = run(["tag", "rename", "alpha", "beta", "--plan-etag", out.plan_etag, "--json"]);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout).dry_run).toBe(false);
    expect(readFileSync(join(sb.vault, "A.md"), "utf8")).toContain("#beta");
    expect(run(["tag", "rename", "beta", "gamma", "--yes", "--json"]).code).toBe(0);
    expect(readFileSync(join(sb.vault, "B.md"), "utf8")).toContain("gamma");
  });
});

describe("global flags and help", () => {
  test("an unknown flag before the command is an error, a mistyped one names the flag meant", () => {
    const unknown = run(["--foo", "search", "x"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option --foo");
    const typo = run(["--vualt", sb.vault, "search", "x"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Did you mean --vault?");
    expect(typo.stderr).not.toContain("Unknown command");
    expect(run(["--vault", sb.vault, "--json", "search", "x"]).code).toBe(0);
  });

  test("-V prints the version; help of an unknown command exits 2 with did-you-mean", () => {
    const v = run(["-V"]);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toBe(VERSION);
    const h = run(["help", "serch"]);
    expect(h.code).toBe(2);
    expect(h.stderr).toContain("Did you mean search?");
  });

  test("--color, --no-color, FORCE_COLOR and NO_COLOR decide colour", () => {
    const esc = "\x1b[";
    expect(run(["doctor", "--format", "table", "--color"]).stdout).toContain(esc);
    expect(run(["doctor", "--format", "table"], { FORCE_COLOR: "1" }).stdout).toContain(esc);
    expect(run(["doctor", "--format", "table", "--no-color"], { FORCE_COLOR: "1" }).stdout).not.toContain(esc);
    expect(run(["doctor", "--format", "table"], { NO_COLOR: "1" }).stdout).not.toContain(esc);
  });
});

describe("errors say the rule", () => {
  test("a mistyped patch op names the known ops; a wrong canvas names each missing field once", () => {
    const op = run(["note", "patch", "A.md", "--ops", '[{"op":"apend","text":"x"}]']);
    expect(op.code).toBe(2);
    expect(op.stderr).toContain('has op "apend"');
    expect(op.stderr).toContain("append_body");
    expect(op.stderr).not.toContain("union");
    const canvas = run(["canvas", "create", "C.canvas", "--canvas", '{"nodes":[{"id":"a","type":"text","x":0,"y":0,"width":1,"height":1}],"edges":[]}']);
    expect(canvas.code).toBe(2);
    expect(canvas.stderr).toContain("nodes/0/text is required");
    const untyped = run(["canvas", "create", "C.canvas", "--canvas", '{"nodes":[{"id":"a"}],"edges":[]}']);
    expect(untyped.code).toBe(2);
    expect(untyped.stderr).toContain("--canvas.nodes[0].type is required");
    expect(untyped.stderr).not.toContain("--canvas is required");
  });
});

describe("empty lists", () => {
  test("md keeps a header, csv a header row, table one sentence for every command", () => {
    const lists = [
      ["link", "unresolved"],
      ["search", "zzzz-nothing"],
      ["link", "broken-anchors"],
      ["tag", "notes", "nosuchtag"],
    ];
    for (const words of lists) {
      const csv = run([...words, "--format", "csv"]);
      expect(csv.code).toBe(0);
      expect(csv.stdout.trim()).not.toBe("");
      expect(csv.stdout.trim().split("\n")).toHaveLength(1);
      const md = run([...words, "--format", "md"])
        .stdout.trim()
        .split("\n");
      expect(md).toHaveLength(2);
      expect(md[1]).toMatch(/^\| --- \|/);
      expect(run([...words, "--format", "table"]).stdout.trim()).toBe("No results.");
    }
  });
});

describe("token commands and --json", () => {
  test("token create --json id keeps the field; token revoke --json prints the result", () => {
    const created = run(["token", "create", "--name", "agent", "--json", "id"]);
    expect(created.code).toBe(0);
    const out = JSON.parse(created.stdout) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["id"]);
    const revoked = run(["token", "revoke", "agent", "--json"]);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ id: "agent", revoked: true });
  });
});
