import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** The CLI's paged lists (docs/decisions.md, "Every page from the CLI"): -n, --all, and the notice of a cut list. */

const MAIN = `${import.meta.dir}/../../src/main.ts`;
let sb: Sandbox;

function run(args: string[]) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { env: { ...process.env, ...sb.env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

beforeAll(() => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 25; i++) files[`Notes/Apple ${String(i).padStart(2, "0")}.md`] = `Apple pie, apple number ${i}.\n`;
  sb = sandbox(files);
  expect(run(["vault", "index"]).code).toBe(0);
});
afterAll(() => sb?.cleanup());

describe("paged lists on the command line", () => {
  test("-n is --limit", () => {
    const r = run(["search", "apple", "-n", "3", "--format", "files"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(3);
  });

  test("a list format cut at the page size says so on stderr, not in the rows", () => {
    const cut = run(["search", "apple", "-n", "10", "--format", "files"]);
    expect(cut.stdout.trim().split("\n")).toHaveLength(10);
    expect(cut.stderr).toContain("--all");
    expect(cut.stderr).toMatch(/--cursor \S+/);
    const whole = run(["search", "apple", "-n", "100", "--format", "ndjson"]);
    expect(whole.stdout.trim().split("\n")).toHaveLength(25);
    expect(whole.stderr).toBe("");
  });

  test("--all streams every page: NDJSON rows when piped, a CSV header once", () => {
    const all = run(["search", "apple", "--all", "-n", "7"]);
    expect(all.code).toBe(0);
    const rows = all.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { path: string });
    expect(rows).toHaveLength(25);
    expect(new Set(rows.map((r) => r.path)).size).toBe(25);
    expect(all.stderr).toBe("");
    const csv = run(["search", "apple", "--all", "-n", "10", "--format", "csv"]).stdout.trim().split("\n");
    expect(csv).toHaveLength(26);
    expect(csv.filter((l) => l.startsWith("id,"))).toHaveLength(1);
    // Every other paged command has it too.
    expect(run(["note", "list", "--all", "-n", "4", "--format", "files"]).stdout.trim().split("\n")).toHaveLength(25);
  });
});
