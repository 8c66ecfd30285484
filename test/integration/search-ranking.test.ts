import { afterEach, describe, expect, test } from "bun:test";
import { vaultSearch } from "../../src/search/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

interface Hit {
  path: string;
  heading: string | null;
  matched_in: string[];
}

async function search(ctx: ReturnType<Sandbox["context"]>, q: string): Promise<Hit[]> {
  return ((await invoke(vaultSearch, ctx, { q, mode: "lexical" })) as { results: Hit[] }).results;
}

describe("lexical search over a real index", () => {
  test("an excluded word excludes the whole note, not only the section that has it", async () => {
    sb = sandbox({
      "Plan.md": "# Plan\n\nThe launch is on Monday.\n\n## Risks\n\nA canary rollout first.\n",
      "Day.md": "# Day\n\nLaunch day notes.\n",
    });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect((await search(ctx, "launch")).map((h) => h.path).sort()).toEqual(["Day.md", "Plan.md"]);
    expect((await search(ctx, "launch -canary")).map((h) => h.path)).toEqual(["Day.md"]);
    expect((await search(ctx, 'launch -"canary rollout"')).map((h) => h.path)).toEqual(["Day.md"]);
    ctx.close();
  });

  test("a title is counted once: its H1 is neither a heading nor body match", async () => {
    sb = sandbox({
      "Alpha report.md": "# Alpha report\n\nNumbers of the quarter.\n\n## Details\n\nMore numbers.\n",
      "Titled.md": "---\ntitle: Beta plan\n---\n# Beta plan\n\nSteps.\n",
    });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const [alpha] = await search(ctx, "alpha");
    expect(alpha).toMatchObject({ path: "Alpha report.md", matched_in: ["title"] });
    const [beta] = await search(ctx, "beta");
    expect(beta).toMatchObject({ path: "Titled.md", matched_in: ["title"] });
    const [details] = await search(ctx, "details numbers");
    expect(details).toMatchObject({ path: "Alpha report.md", heading: "Details" });
    ctx.close();
  });
});
