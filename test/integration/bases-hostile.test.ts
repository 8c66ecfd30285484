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
  });
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
