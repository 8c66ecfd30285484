import { afterEach, describe, expect, test } from "bun:test";
import { vaultSearch } from "../../src/search/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** Every hit shows text to judge it by (docs/search.md, "Lexical ranking"): matches marked, else the section's opening. */

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

interface Hit {
  path: string;
  snippet: string;
  matched_in: string[];
  heading: string | null;
}

async function hits(ctx: ReturnType<Sandbox["context"]>, q: string): Promise<Hit[]> {
  return ((await invoke(vaultSearch, ctx, { q, mode: "lexical" })) as { results: Hit[] }).results;
}

const by = (found: Hit[], path: string) => found.find((h) => h.path === path)!;

describe("snippets on every hit", () => {
  test("a match only in the title, aliases or tags shows the opening of the section, unmarked", async () => {
    sb = sandbox({
      "Gardening.md": "# Gardening\n\nSoil first: compost, mulch and patience make the beds ready for the spring planting season.\n",
      "Aliased.md": "---\naliases: [Orchard]\ntags: [fruit]\n---\nApples and pears grow on the north slope behind the old barn near the lake.\n",
      "Heading only.md": "# Heading only\n\n## Steps\n\nDig a hole twice as wide as the root ball, then water it well.\n",
    });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect(by(await hits(ctx, "gardening"), "Gardening.md")).toMatchObject({
      matched_in: ["title"],
      snippet: "Soil first: compost, mulch and patience make the beds ready for the spring planting…",
    });
    expect(by(await hits(ctx, "orchard"), "Aliased.md").snippet).toBe("Apples and pears grow on the north slope behind the old barn near the…");
    expect(by(await hits(ctx, "fruit"), "Aliased.md").snippet).toStartWith("Apples and pears");
    // A section that is only the title line runs on into the next one.
    expect(by(await hits(ctx, "heading only"), "Heading only.md").snippet).toStartWith("Dig a hole twice");
    for (const q of ["gardening", "orchard", "fruit", "heading only"]) for (const h of await hits(ctx, q)) expect(h.snippet).not.toContain("**");
    ctx.close();
  });

  test("a short section is shown whole, with its matches marked", async () => {
    sb = sandbox({ "Short.md": "# Short\n\nBuy oat milk.\n", "Tiny.md": "Call the plumber.\n" });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect(by(await hits(ctx, "oat"), "Short.md").snippet).toBe("# Short Buy **oat** milk");
    expect(by(await hits(ctx, "tiny"), "Tiny.md").snippet).toBe("Call the plumber.");
    ctx.close();
  });

  test("only a note with no text has an empty snippet", async () => {
    sb = sandbox({ "Props.md": "---\nstatus: done\n---\n" });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect(await hits(ctx, "props")).toMatchObject([{ path: "Props.md", snippet: "" }]);
    ctx.close();
  });
});
