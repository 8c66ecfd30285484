import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Surfaces, startSurfaces } from "../support/surfaces.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Hostile bases on every surface (docs/decisions.md, "The cost of a base"): whatever a caller
 * sends, the answer is a typed error, never a 500, and it comes in bounded time.
 */
let sb: Sandbox;
let s: Surfaces;

/** Six lines whose aliases expand to a million list items. */
const ALIAS_BOMB = [
  "a: &a [x,x,x,x,x,x,x,x,x,x]",
  "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]",
  "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]",
  "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]",
  "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]",
  "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]",
  "views: [{type: table, name: x}]",
].join("\n");

beforeAll(async () => {
  sb = sandbox({
    "Bomb.base": ALIAS_BOMB,
    "Bomb note.md": `# Bomb\n\n\`\`\`base\n${ALIAS_BOMB}\n\`\`\`\n`,
    "a.md": "# a\n",
    // A name that makes a backtracking engine try every way to split its run of a's.
    [`Names/${"a".repeat(32)}!.md`]: "# many a\n",
    "Names/plain.md": "# plain\n",
  });
  for (let i = 0; i < 40; i++) sb.write(`Notes/n${i}.md`, `---\nsummary: ${"word ".repeat(600)}\n---\n# n${i}\n`);
  s = await startSurfaces(sb);
  await s.ctx.updateIndex({ build: true });
});

afterAll(async () => {
  await s?.close();
  sb?.cleanup();
});

describe("a YAML alias bomb", () => {
  test("inline over REST: 400 validation_failed naming the alias limit, not 500", async () => {
    const r = await s.rest("POST", "/v1/bases/query", { base: ALIAS_BOMB });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.message).toContain("YAML aliases");
  });

  test("a .base file over the CLI: exit 2 validation_failed, not 1 internal", async () => {
    const r = await s.cli(["base", "query", "Bomb.base"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("validation_failed");
    expect(r.stderr).toContain("YAML aliases");
  });

  test("a note's base block over MCP: a tool error validation_failed, not internal", async () => {
    const client = await s.mcp(["vault:read"]);
    const r = await client.callTool({ name: "base_query", arguments: { path: "Bomb note.md" } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain("validation_failed");
  });
});

describe("expressions whose work grows with their input", () => {
  test("a backtracking regex on file.name runs in linear time (RE2) and answers the right rows", async () => {
    const base = "filters: '/(a|a)+$/.matches(file.name)'\nviews: [{type: table, name: t}]";
    const r = await s.rest("POST", "/v1/bases/query", { base });
    expect(r.status).toBe(200);
    expect(r.body.data.total).toBe(0);
    const hit = await s.rest("POST", "/v1/bases/query", { base: "filters: '/^(a+)+!$/.matches(file.basename)'\nviews: [{type: table, name: t}]" });
    expect(hit.body.data.rows.map((row: { path: string }) => row.path)).toEqual([`Names/${"a".repeat(32)}!.md`]);
  }, 20_000);

  test("a regex that needs backtracking (a back-reference) is refused when the base is read, with its place", async () => {
    const r = await s.rest("POST", "/v1/bases/query", { base: "filters: '/(a)\\1/.matches(file.name)'" });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("parse_failed");
    expect(r.body.error.message).toContain("Unsupported regular expression");
  });

  test('split("") of a long text on every note stops with query_too_costly: 422 on REST, exit 2 on the CLI, an MCP tool error', async () => {
    // It reads the row (file.name), so it runs once per note, not once per query.
    const base = `filters: '(file.name + "x".repeat(200000)).split("").length > 0'\nviews: [{type: table, name: t}]`;
    const r = await s.rest("POST", "/v1/bases/query", { base });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("query_too_costly");
    const cli = await s.cli(["base", "query", "--base", base]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("query_too_costly");
    const client = await s.mcp(["vault:read"]);
    const m = await client.callTool({ name: "base_query", arguments: { base } });
    expect(m.isError).toBe(true);
    expect(JSON.stringify(m.content)).toContain("query_too_costly");
  }, 30_000);

  test("a map inside a map over a long list, and note_list --where, are bounded the same way", async () => {
    const nested = `filters: 'note.summary.split(" ").map(note.summary.split(" ").map(value + "x").length).length > 0'\nviews: [{type: table, name: t}]`;
    const r = await s.rest("POST", "/v1/bases/query", { base: nested });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("query_too_costly");
    const where = await s.rest("GET", `/v1/notes?where=${encodeURIComponent('(file.name + "x".repeat(200000)).split("").length > 0')}`);
    expect(where.status).toBe(422);
    expect(where.body.error.code).toBe("query_too_costly");
  }, 30_000);

  test("a text or list past its cap is an error in its cell, not a query failure", async () => {
    const base = `formulas:\n  big: '"x".repeat(600000) + "x".repeat(600000)'\nfilters: 'file.name == "a.md"'\nviews: [{type: table, name: t, order: [formula.big]}]`;
    const r = await s.rest("POST", "/v1/bases/query", { base });
    expect(r.status).toBe(200);
    expect(r.body.data.rows[0].cells["formula.big"].type).toBe("error");
  });
});
