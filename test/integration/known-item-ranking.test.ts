import { afterEach, describe, expect, test } from "bun:test";
import { vaultSearch } from "../../src/search/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Known-item search (docs/search.md, "Lexical ranking"): the note a query names comes first, and a
 * title match is not diluted by the length of the note's body (BM25F).
 */

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

interface Hit {
  path: string;
  matched_in: string[];
  snippet: string;
}

async function paths(ctx: ReturnType<Sandbox["context"]>, q: string): Promise<string[]> {
  return ((await invoke(vaultSearch, ctx, { q, mode: "lexical", limit: 40 })) as { results: Hit[] }).results.map((h) => h.path);
}

const FILLER = "the workspace keeps every view and panel where you left it so that a session picks up again".split(" ");

/** A long documentation note: `words` words of prose that mention its topic now and then. */
function longNote(title: string, topic: string, words: number): string {
  const out: string[] = [`# ${title}`, ""];
  for (let i = 0; i < words; i++) out.push(i % 400 === 17 ? topic : FILLER[i % FILLER.length]!);
  return `${out.join(" ")}\n`;
}

/** A vault with the long note and 30 short plugin notes that mention its word once or twice. */
function knownItemVault(): Record<string, string> {
  const files: Record<string, string> = {
    "Help/Canvas.md": longNote("Canvas", "canvas", 3000),
    "Help/Bases syntax.md": `---\naliases: [Base formulas]\n---\n${longNote("Bases syntax", "bases", 2500)}`,
    "References/Blade Runner.md": "---\ngenre: sci-fi\ncast: [Harrison Ford]\n---\n",
  };
  for (let i = 0; i < 30; i++)
    files[`Plugins/Plugin ${i}.md`] =
      i % 2
        ? `Adds a canvas export button. Works with canvas files.\n`
        : `Canvas helper number ${i}: bases syntax snippets and base formulas for the canvas.\n`;
  return files;
}

describe("known-item search", () => {
  test("a long note titled exactly as the query ranks first against 30 short notes that mention the word", async () => {
    sb = sandbox(knownItemVault());
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect((await paths(ctx, "canvas"))[0]).toBe("Help/Canvas.md");
    expect((await paths(ctx, "Canvas"))[0]).toBe("Help/Canvas.md");
    ctx.close();
  });

  test("a near-exact name counts: case and punctuation; an alias names its note too", async () => {
    sb = sandbox(knownItemVault());
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect((await paths(ctx, "bases-syntax"))[0]).toBe("Help/Bases syntax.md");
    expect((await paths(ctx, "BASES SYNTAX"))[0]).toBe("Help/Bases syntax.md");
    expect((await paths(ctx, "Bases: syntax"))[0]).toBe("Help/Bases syntax.md");
    expect((await paths(ctx, "base formulas"))[0]).toBe("Help/Bases syntax.md");
    // Operators keep their meaning: an excluded word is not part of the name, and excludes.
    expect((await paths(ctx, "canvas -export"))[0]).toBe("Help/Canvas.md");
    expect(await paths(ctx, "canvas -workspace")).not.toContain("Help/Canvas.md");
    ctx.close();
  });

  test("a date names the daily note of that day, ahead of notes whose title starts with it", async () => {
    sb = sandbox({
      "Daily/2023-09-12.md": longNote("2023-09-12", "errands", 2000),
      "Notes/2023-09-12 Meeting with Steph.md": "# 2023-09-12 Meeting with Steph\n\nAgenda for 2023-09-12: the 2023-09-12 release, 2023-09-12.\n",
      "Notes/Release.md": "Shipped on 2023-09-12, see 2023-09-12 notes.\n",
    });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect((await paths(ctx, "2023-09-12"))[0]).toBe("Daily/2023-09-12.md");
    ctx.close();
  });

  test("a query that only shares a word with a title does not get the name's rank", async () => {
    sb = sandbox(knownItemVault());
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    // "canvas export" names no note: the plugin notes that have both words come first.
    const found = await paths(ctx, "canvas export");
    expect(found[0]).toStartWith("Plugins/");
    ctx.close();
  });

  test("a note with only properties is found by its name", async () => {
    sb = sandbox(knownItemVault());
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const out = (await invoke(vaultSearch, ctx, { q: "Blade Runner", mode: "lexical" })) as { results: (Hit & { chunk_id: string; line: number })[] };
    expect(out.results[0]).toMatchObject({ path: "References/Blade Runner.md", matched_in: ["title"], snippet: "", line: 1 });
    ctx.close();
  });
});
