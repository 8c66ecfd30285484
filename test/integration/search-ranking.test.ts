import { afterEach, describe, expect, test } from "bun:test";
import { EXACT_CAP } from "../../src/search/lexical.ts";
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

  test("above EXACT_CAP matching notes, the notes that decide BM25's order are still ranked first", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < EXACT_CAP + 100; i++) files[`many/n${String(i).padStart(4, "0")}.md`] = `Alpha notes, number ${i}, with filler words.\n`;
    files["zz/Rare.md"] = "Zeta, nothing else.\n";
    files["zz/Alpha.md"] = "Filler.\n";
    sb = sandbox(files);
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    // The rare word's notes are candidates whatever their place in the index.
    expect((await search(ctx, "alpha zeta"))[0]!.path).toBe("zz/Rare.md");
    // A title match outranks body matches even when the word is in every note.
    expect((await search(ctx, "alpha"))[0]!.path).toBe("zz/Alpha.md");
    expect(await search(ctx, "alpha")).toHaveLength(10);
    ctx.close();
  });

  test("a CJK word is found inside a longer run, at its start, middle or end", async () => {
    sb = sandbox({
      "Tokyo.md": "東京タワーに行きました。\n",
      "Osaka.md": "大阪城の写真。\n",
      "Mixed.md": "Notes on 京都 and more.\n",
    });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const paths = async (q: string) => (await search(ctx, q)).map((h) => h.path).sort();
    expect(await paths("東京")).toEqual(["Tokyo.md"]);
    expect(await paths("タワー")).toEqual(["Tokyo.md"]);
    expect(await paths("京タ")).toEqual(["Tokyo.md"]);
    expect(await paths("京")).toEqual(["Mixed.md", "Tokyo.md"]);
    expect(await paths("城")).toEqual(["Osaka.md"]);
    expect(await paths("真")).toEqual(["Osaka.md"]); // the last character of a run
    expect(await paths("大阪城の写真")).toEqual(["Osaka.md"]);
    expect(await paths("東京 -タワー")).toEqual([]);
    ctx.close();
  });
});
