import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OPERATIONS } from "../../../src/app/registry.ts";

/**
 * The README's MCP tool list is the registry's (one tool per operation, docs/mcp.md, Tools): each
 * group it names (Read, Write, Admin, AI) holds exactly the operations of that scope, so the list
 * cannot drift from what the binary serves.
 */
const README = readFileSync(join(import.meta.dir, "..", "..", "..", "README.md"), "utf8");

function toolsBullet(): string {
  const start = README.indexOf("- **Tools**:");
  const end = README.indexOf("Input and output JSON Schemas", start);
  expect(start).toBeGreaterThan(-1);
  return README.slice(start, end);
}

const group = (text: string, label: string, next: string | null) => {
  const from = text.indexOf(`${label}`);
  const to = next ? text.indexOf(next, from) : text.length;
  return [...text.slice(from, to).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!).sort();
};

describe("README: MCP tools", () => {
  test("list every tool the binary serves, grouped by what it needs", () => {
    const bullet = toolsBullet();
    const names = (f: (op: (typeof OPERATIONS)[number]) => boolean) =>
      OPERATIONS.filter(f)
        .map((op) => op.name)
        .sort();
    expect(group(bullet, "Read:", "Write:")).toEqual(names((op) => !op.ai && op.scope === "vault:read"));
    expect(group(bullet, "Write:", "Admin:")).toEqual(names((op) => !op.ai && op.scope === "vault:write"));
    expect(group(bullet, "Admin:", "AI (")).toEqual(names((op) => !op.ai && op.scope === "vault:admin"));
    expect(group(bullet, "AI (", null)).toEqual(names((op) => op.ai !== undefined));
  });
});

describe("indx mcp --help", () => {
  test("names every admin tool --admin adds", async () => {
    const { root } = await import("../../../src/cli/root.ts");
    const { renderHelp } = await import("../../../src/cli/help.ts");
    const { subCommandsOf } = await import("../../../src/cli/tree.ts");
    const mcp = (await subCommandsOf(root))?.mcp;
    expect(mcp).toBeDefined();
    const help = (await renderHelp(mcp!, ["mcp"], 400)).replace(/\s+/g, " ");
    for (const op of OPERATIONS.filter((o) => o.scope === "vault:admin")) expect(help).toContain(op.name);
  });
});
