import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IndxError } from "../../src/core/errors.ts";
import { linkBacklinks, linkForward, linkOrphans, linkUnresolved } from "../../src/links/ops.ts";
import { vaultStatus } from "../../src/maintenance/ops.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

const paths = async (ctx: ReturnType<Sandbox["context"]>, q: string) =>
  ((await invoke(vaultSearch, ctx, { q })) as { results: { path: string }[] }).results.map((r) => r.path);

describe("incremental indexing on a real SQLite file", () => {
  test("build, no-change pass, edit, delete, add", async () => {
    sb = sandbox({ "A.md": "# A\n\nalpha [[B]]\n", "B.md": "# B\n\nbravo\n", "sub/C.md": "charlie [[A#A]]\n" });
    const ctx = sb.context();
    const first = await ctx.updateIndex({ build: true });
    expect(first.added).toBe(3);
    expect(first.rebuilt).toBe("new index");

    const again = await ctx.updateIndex({ build: true });
    expect(again.added + again.updated + again.deleted).toBe(0);
    expect(again.unchanged).toBe(3);

    sb.write("B.md", "# B\n\nbravo zulu\n");
    const edited = await ctx.updateIndex({ build: true });
    expect(edited.updated).toBe(1);
    expect(await paths(ctx, "zulu")).toEqual(["B.md"]);

    // Same bytes, new mtime: hashed, not re-parsed.
    utimesSync(join(sb.vault, "A.md"), new Date(), new Date(Date.now() + 5000));
    const touched = await ctx.updateIndex({ build: true });
    expect(touched.updated).toBe(0);
    expect(touched.unchanged).toBe(3);

    rmSync(join(sb.vault, "B.md"));
    const deleted = await ctx.updateIndex({ build: true });
    expect(deleted.deleted).toBe(1);
    expect(await paths(ctx, "zulu")).toEqual([]);

    // Files the walk finds in another order than the index holds them: still nothing changed.
    sb.write("sub/0 first.md", "# First\n");
    sb.write("0.md", "zero\n");
    expect((await ctx.updateIndex({ build: true })).added).toBe(2);
    const reordered = await ctx.updateIndex({ build: true });
    expect(reordered.added + reordered.updated + reordered.deleted).toBe(0);
    expect(reordered.unchanged).toBe(4);
    ctx.close();
  });

  test("links re-resolve when their target appears, moves or disappears", async () => {
    sb = sandbox({ "src/Source.md": "see [[Target]] and [[Other]]\n" });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const unresolved = async () => ((await invoke(linkUnresolved, ctx, {})) as { unresolved: { linkpath: string }[] }).unresolved.map((u) => u.linkpath).sort();
    expect(await unresolved()).toEqual(["Other", "Target"]);

    sb.write("far/Target.md", "# far\n");
    await ctx.updateIndex({ build: true });
    expect(await unresolved()).toEqual(["Other"]);
    const back = (await invoke(linkBacklinks, ctx, { path: "far/Target.md" })) as { count: number };
    expect(back.count).toBe(1);

    // A nearer candidate (same folder as the source) now wins, as in Obsidian.
    sb.write("src/Target.md", "# near\n");
    await ctx.updateIndex({ paths: ["src/Target.md"] });
    expect(((await invoke(linkBacklinks, ctx, { path: "src/Target.md" })) as { count: number }).count).toBe(1);
    expect(((await invoke(linkBacklinks, ctx, { path: "far/Target.md" })) as { count: number }).count).toBe(0);

    renameSync(join(sb.vault, "src/Target.md"), join(sb.vault, "src/Gone.md"));
    await ctx.updateIndex({ paths: ["src/Target.md", "src/Gone.md"] });
    expect(((await invoke(linkBacklinks, ctx, { path: "far/Target.md" })) as { count: number }).count).toBe(1);
    ctx.close();
  });

  test("links come back exactly as written, and re-resolve by name, however they are stored", async () => {
    const written = ["[[Émile Zola]]", "![[Plan.PNG]]", "[[Émile Zola#Books|his books]]", "[[ Spaced ]]", "[Zola](%C3%89mile%20Zola.md)", "[[dir/Deep Note]]"];
    sb = sandbox({ "Links.md": `${written.join("\n")}\n` });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const forward = async () => ((await invoke(linkForward, ctx, { path: "Links.md" })) as { links: { raw: string; target: string | null }[] }).links;
    expect((await forward()).map((l) => l.raw)).toEqual(written);
    expect((await forward()).every((l) => l.target === null)).toBe(true);

    sb.write("people/Émile Zola.md", "# Émile\n");
    sb.write("img/plan.png", "png");
    sb.write("dir/Deep Note.md", "# deep\n");
    await ctx.updateIndex({ build: true });
    expect((await forward()).map((l) => l.target)).toEqual([
      "people/Émile Zola.md",
      "img/plan.png",
      "people/Émile Zola.md",
      null,
      "people/Émile Zola.md",
      "dir/Deep Note.md",
    ]);
    const back = (await invoke(linkBacklinks, ctx, { path: "people/Émile Zola.md" })) as { backlinks: { raw: string }[] };
    expect(back.backlinks.map((b) => b.raw)).toEqual([written[0]!, written[2]!, written[4]!]);
    ctx.close();
  });

  test("targets, syntaxes and backlinks come back whatever form the index stores them in", async () => {
    const written = ["[[Root]]", "[[Deep]]", "[[older/Suffix]]", "[e](Explicit.md)", "![[pic.png]]", "[[#Top]]", "[[Links]]", "[[Nowhere]]"];
    sb = sandbox({
      "Links.md": `---\nup: "[[Deep]]"\n---\n# Top\n\n${written.join("\n")}\n`,
      "Root.md": "root\n",
      "a/b/Deep.md": "deep\n",
      "bolder/Suffix.md": "suffix\n",
      "x/Explicit.md": "explicit\n",
      "img/pic.png": "png",
    });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const forward = ((await invoke(linkForward, ctx, { path: "Links.md" })) as { links: { raw: string; target: string | null; syntax: string }[] }).links;
    expect(forward.map((l) => [l.raw, l.target, l.syntax])).toEqual([
      ["[[Deep]]", "a/b/Deep.md", "frontmatter"],
      ["[[Root]]", "Root.md", "wiki"],
      ["[[Deep]]", "a/b/Deep.md", "wiki"],
      ["[[older/Suffix]]", "bolder/Suffix.md", "wiki"],
      ["[e](Explicit.md)", "x/Explicit.md", "markdown"],
      ["![[pic.png]]", "img/pic.png", "wiki"],
      ["[[#Top]]", "Links.md", "wiki"],
      ["[[Links]]", "Links.md", "wiki"],
      ["[[Nowhere]]", null, "wiki"],
    ]);
    const backlinks = async (path: string) =>
      ((await invoke(linkBacklinks, ctx, { path })) as { backlinks: { raw: string; source: string }[] }).backlinks.map((b) => `${b.source} ${b.raw}`);
    expect(await backlinks("a/b/Deep.md")).toEqual(["Links.md [[Deep]]", "Links.md [[Deep]]"]);
    for (const [path, raw] of [
      ["Root.md", "[[Root]]"],
      ["bolder/Suffix.md", "[[older/Suffix]]"],
      ["x/Explicit.md", "[e](Explicit.md)"],
      ["img/pic.png", "![[pic.png]]"],
    ])
      expect(await backlinks(path!)).toEqual([`Links.md ${raw}`]);
    expect(await backlinks("Links.md")).toEqual(["Links.md [[#Top]]", "Links.md [[Links]]"]);
    ctx.close();
  });

  test("orphans: self-links and unresolved links do not count, links in and out however stored do", async () => {
    sb = sandbox({
      "Self.md": "# Top\n\n[[#Top]] [[Self]] [[Self#Top]] [[Nowhere]]\n",
      "Links.md": "[[Deep]] [[older/Suffix]] ![[pic.png]]\n",
      "a/b/Deep.md": "deep\n",
      "bolder/Suffix.md": "suffix\n",
      "img/pic.png": "png",
      "people/Émile Zola.md": "# Émile\n",
      "Quotes.md": "[[ÉMILE ZOLA#Émile]]\n",
      "x/Explicit.md": "[[#Top]]\n",
      "Markdown.md": "[e](x/Explicit.md)\n",
      "Lonely.md": "[[Nowhere]] [[Lonely]]\n",
    });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const orphans = async () => ((await invoke(linkOrphans, ctx, {})) as { orphans: { path: string }[] }).orphans.map((o) => o.path);
    expect(await orphans()).toEqual(["Lonely.md", "Self.md"]);

    // The link to Nowhere resolves once a note of that name appears: both ends are linked then.
    sb.write("far/Nowhere.md", "far\n");
    await ctx.updateIndex({ build: true });
    expect(await orphans()).toEqual([]);

    // Nowhere.md at the root now takes Self.md's link, and Lonely.md goes: far/Nowhere.md has no link left.
    sb.write("Nowhere.md", "near\n");
    rmSync(join(sb.vault, "Lonely.md"));
    await ctx.updateIndex({ build: true });
    expect(await orphans()).toEqual(["far/Nowhere.md"]);
    ctx.close();
  });

  test("malformed frontmatter never fails the vault", async () => {
    sb = sandbox({ "bad.md": "---\ntitle: [unclosed\n---\n# Body still indexed\n\nxylophone\n", "ok.md": "fine\n" });
    const ctx = sb.context();
    const r = await ctx.updateIndex({ build: true });
    expect(r.added).toBe(2);
    expect(r.warnings.map((w) => `${w.code}:${w.path}`)).toContain("frontmatter_invalid:bad.md");
    expect(r.warnings.every((w) => !w.message.includes("xylophone"))).toBe(true);
    expect(await paths(ctx, "xylophone")).toEqual(["bad.md"]);
    ctx.close();
  });

  test("a missing or foreign index is reported, never used silently", async () => {
    sb = sandbox({ "a.md": "alpha\n" });
    const ctx = sb.context();
    await expect(invoke(vaultSearch, ctx, { q: "alpha" })).rejects.toMatchObject({ code: "index_missing" });
    const status = (await invoke(vaultStatus, ctx, {})) as { index: { state: string; fix: string } };
    expect(status.index.state).toBe("missing");
    await ctx.updateIndex({ build: true });
    ctx.close();

    const db = new Database(join(sb.dataDir, "index.db"));
    db.run("UPDATE meta SET value = '999' WHERE key = 'schema_version'");
    db.close();
    const fresh = sb.context();
    const err: any = await invoke(vaultSearch, fresh, { q: "alpha" }).catch((e) => e);
    expect(err).toBeInstanceOf(IndxError);
    expect(err.code).toBe("index_incompatible");
    expect(err.message).toContain("indx vault index --rebuild");
    const rebuilt = await fresh.updateIndex({ build: true });
    expect(rebuilt.rebuilt).toContain("another indx version");
    expect(await paths(fresh, "alpha")).toEqual(["a.md"]);
    fresh.close();
  });

  test("a changed exclusion list is an incompatible index until re-indexed", async () => {
    sb = sandbox({ "a.md": "alpha\n", "Templates/t.md": "alpha template\n" });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect((await paths(ctx, "alpha")).sort()).toEqual(["Templates/t.md", "a.md"]);
    ctx.close();
    const narrowed = sb.context({ "index.exclude": ["Templates/**"] });
    await expect(invoke(vaultSearch, narrowed, { q: "alpha" })).rejects.toMatchObject({ code: "index_incompatible" });
    await narrowed.updateIndex({ build: true });
    expect(await paths(narrowed, "alpha")).toEqual(["a.md"]);
    narrowed.close();
  });

  test("the index stays outside the vault", async () => {
    sb = sandbox({ "a.md": "alpha\n" });
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    expect(ctx.index.path.startsWith(sb.vault)).toBe(false);
    writeFileSync(join(sb.vault, "b.md"), "bravo\n");
    ctx.close();
  });
});
