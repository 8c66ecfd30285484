/** planMove link text: formats, syntaxes, subpaths, ambiguity, relative links, canvases. */
import { afterEach, describe, expect, test } from "bun:test";
import { jsonStringSpans } from "../../../src/canvas/json-spans.ts";
import type { IndxError } from "../../../src/core/errors.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { runIndex } from "../../../src/index/build/indexer.ts";
import { planMove } from "../../../src/links/rewrite.ts";
import { parseNote } from "../../../src/markdown/parse.ts";
import { LinkResolver } from "../../../src/vault/link-resolver.ts";
import type { FileEdit } from "../../../src/writes/edit.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";
import { applyEdits, hashTree, moveFile, read } from "./helpers.ts";

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

/** Builds the vault, indexes it and plans the move; returns the planned text of each edited file. */
function plan(files: Record<string, string>, from: string, to: string, linkFormat?: string) {
  if (linkFormat) files = { ...files, ".obsidian/app.json": JSON.stringify({ newLinkFormat: linkFormat }) };
  sb = sandbox(files);
  const ctx = sb.context();
  runIndex(ctx.vault);
  const { edits } = planMove(ctx.vault, ctx.index, from, to);
  ctx.close();
  const text = (path: string) => edits.find((e) => e.path === path)?.text;
  return { edits, text };
}

/** Applies a plan and checks with a fresh resolver that every link of the vault resolves as before. */
function applyAndResolve(edits: FileEdit[], from: string, to: string, files: Record<string, string>): void {
  applyEdits(sb!.vault, edits);
  moveFile(sb!.vault, from, to);
  const mdPaths = (ps: string[]) => ps.filter((p) => !p.startsWith("."));
  const before = new LinkResolver(mdPaths(Object.keys(files)));
  const afterPaths = [...hashTree(sb!.vault).keys()].filter((p) => !p.startsWith("."));
  const after = new LinkResolver(afterPaths);
  for (const [path, text] of Object.entries(files)) {
    if (!path.endsWith(".md")) continue;
    const newPath = path === from ? to : path;
    const oldLinks = parseNote(text).links;
    const newLinks = parseNote(read(sb!.vault, newPath)).links;
    expect(newLinks.length).toBe(oldLinks.length);
    oldLinks.forEach((l, i) => {
      const was = before.resolve(l.linkpath, path);
      if (was === null) return;
      expect({ link: l.raw, in: path, to: after.resolve(newLinks[i]!.linkpath, newPath) }).toEqual({
        link: l.raw,
        in: path,
        to: was === from ? to : was,
      });
    });
  }
}

const SOURCE = [
  "---",
  'related: "[[Note]]"',
  "list:",
  '  - "[[Note#Head|h]]"',
  "---",
  "# Source",
  "",
  "[[Note]] and [[Note|an alias]] and ![[Note#Head]] and [[Note#^blk|b]].",
  "[md](Note.md) and [md head](Note.md#Some%20Heading) and [angle](<Note.md>) and ![img](Note.md).",
  "| [[Note\\|cell]] | [[Missing]] |",
  "`[[Note]]` in code stays.",
  "",
].join("\n");

const NOTE = "# Note\n\n## Head\n\nSome text ^blk\n\nsee [[Note#Head]] and [[#Head]]\n";

describe("link formats (app.json newLinkFormat)", () => {
  const files = { "A/Source.md": SOURCE, "Note.md": NOTE, "Other/x.md": "nothing\n" };
  const expected = (wiki: string, md: string) =>
    [
      "---",
      `related: "[[${wiki}]]"`,
      "list:",
      `  - "[[${wiki}#Head|h]]"`,
      "---",
      "# Source",
      "",
      `[[${wiki}]] and [[${wiki}|an alias]] and ![[${wiki}#Head]] and [[${wiki}#^blk|b]].`,
      `[md](${md}) and [md head](${md}#Some%20Heading) and [angle](<${decodeURI(md)}>) and ![img](${md}).`,
      `| [[${wiki}\\|cell]] | [[Missing]] |`,
      "`[[Note]]` in code stays.",
      "",
    ].join("\n");

  test("shortest (the default, also for a missing or malformed app.json): the bare name when unique", () => {
    const p = plan({ ...files, ".obsidian/app.json": "{not json" }, "Note.md", "Sub Dir/New Name.md");
    expect(p.text("A/Source.md")).toBe(expected("New Name", "New%20Name.md"));
    // The moved note's links to itself follow it; [[#Head]] is left alone.
    expect(p.text("Note.md")).toBe("# Note\n\n## Head\n\nSome text ^blk\n\nsee [[New Name#Head]] and [[#Head]]\n");
    expect(p.edits.map((e) => e.path).sort()).toEqual(["A/Source.md", "Note.md"]);
    applyAndResolve(p.edits, "Note.md", "Sub Dir/New Name.md", files);
  });

  test("shortest falls back to the full path when the name is not unique after the move", () => {
    const withTwin = { ...files, "Other/New Name.md": "twin\n" };
    const p = plan(withTwin, "Note.md", "Sub Dir/New Name.md");
    expect(p.text("A/Source.md")).toBe(expected("Sub Dir/New Name", "Sub%20Dir/New%20Name.md"));
    applyAndResolve(p.edits, "Note.md", "Sub Dir/New Name.md", withTwin);
  });

  test("absolute", () => {
    const p = plan(files, "Note.md", "Sub Dir/New Name.md", "absolute");
    expect(p.text("A/Source.md")).toBe(expected("Sub Dir/New Name", "Sub%20Dir/New%20Name.md"));
    applyAndResolve(p.edits, "Note.md", "Sub Dir/New Name.md", files);
  });

  test("relative: from the source note's folder", () => {
    const p = plan(files, "Note.md", "Sub Dir/New Name.md", "relative");
    expect(p.text("A/Source.md")).toBe(expected("../Sub Dir/New Name", "../Sub%20Dir/New%20Name.md"));
    applyAndResolve(p.edits, "Note.md", "Sub Dir/New Name.md", files);
  });

  test("one FileEdit per file, with the etag of the bytes it was planned from and each changed line", () => {
    const p = plan(files, "Note.md", "Sub Dir/New Name.md");
    const edit = p.edits.find((e) => e.path === "A/Source.md")!;
    expect(edit.etag).toBe(etagOf(SOURCE));
    expect(edit.changes.map((c) => c.line)).toEqual([2, 4, 8, 9, 10]);
    expect(edit.changes[0]).toEqual({ line: 2, before: 'related: "[[Note]]"', after: 'related: "[[New Name]]"' });
  });
});

describe("attachments and canvases", () => {
  const canvas =
    '{\n\t"nodes":[\n\t\t{"id":"a1","type":"file","file":"img.png","x":0,"y":0,"width":10,"height":10},\n' +
    '\t\t{"id":"g1","type":"group","background":"img.png","x":0,"y":0,"width":10,"height":10},\n' +
    '\t\t{"id":"t1","type":"text","text":"img.png","x":0,"y":0,"width":10,"height":10},\n' +
    '\t\t{"id":"t2","type":"text","text":"# Card\\n\\n![[img.png|200]] and [[n]]","x":0,"y":0,"width":10,"height":10}\n\t],\n\t"edges":[]\n}';
  const files = { "n.md": "![[img.png]] ![](img.png) [[img.png|pic]] [[img]]\n", "img.png": "PNG", "board.canvas": canvas };

  test("embeds keep the extension; Markdown images are URL-encoded; canvas file nodes and text cards change surgically", () => {
    const p = plan(files, "img.png", "media/pic one.png");
    expect(p.text("n.md")).toBe("![[pic one.png]] ![](pic%20one.png) [[pic one.png|pic]] [[img]]\n");
    expect(p.text("board.canvas")).toBe(
      canvas
        .replace('"file":"img.png"', '"file":"media/pic one.png"')
        .replace('"background":"img.png"', '"background":"media/pic one.png"')
        .replace("![[img.png|200]]", "![[pic one.png|200]]"),
    );
    applyAndResolve(p.edits, "img.png", "media/pic one.png", files);
  });
});

describe("moves that would change what other links resolve to", () => {
  test("a file moved to the root under a taken name: bare links to the old holder get a path", () => {
    const files = { "A/Note.md": "# A note\n", "B/src.md": "[[Note]] and [[Thing]] and [n](Note.md)\n", "C/Thing.md": "thing\n" };
    const p = plan(files, "C/Thing.md", "Note.md");
    expect(p.text("B/src.md")).toBe("[[A/Note]] and [[Note]] and [n](A/Note.md)\n");
    applyAndResolve(p.edits, "C/Thing.md", "Note.md", files);
  });

  test("a file moved next to a source (the near group) does not capture its links", () => {
    const files = { "B/src.md": "[[Deep]] ![[Deep#H]]\n", "C/Deep.md": "far\n", "X/Other.md": "other\n" };
    const p = plan(files, "X/Other.md", "B/Sub/Deep.md");
    expect(p.text("B/src.md")).toBe("[[C/Deep]] ![[C/Deep#H]]\n");
    applyAndResolve(p.edits, "X/Other.md", "B/Sub/Deep.md", files);
  });

  test("a bare name that the move makes ambiguous gets a path, though it would still resolve", () => {
    const files = { "A/Note.md": "# A note\n", "B/src.md": "[[Note]] [[A/Note]] [a](Note.md)\n", "X/Foo.md": "foo\n" };
    const p = plan(files, "X/Foo.md", "Zz/Long/Note.md");
    expect(p.text("B/src.md")).toBe("[[A/Note]] [[A/Note]] [a](A/Note.md)\n");
    applyAndResolve(p.edits, "X/Foo.md", "Zz/Long/Note.md", files);
  });

  test("a link to the moved file that would resolve elsewhere from its old spelling is rewritten, others stay", () => {
    const files = { "B/src.md": "[[Deep]] [[C/Deep]]\n", "C/Deep.md": "far\n", "D/Deep.md": "other deep\n" };
    // [[Deep]] resolved to C/Deep.md (shortest path, then path order); moving it makes D/Deep.md first.
    const p = plan(files, "C/Deep.md", "Z/Long/Deep.md");
    expect(p.text("B/src.md")).toBe("[[Z/Long/Deep]] [[Z/Long/Deep]]\n");
    applyAndResolve(p.edits, "C/Deep.md", "Z/Long/Deep.md", files);
  });
});

describe("the moved note's own links", () => {
  const files = {
    "A/x.md": "[r](../B/y.md) [s](./z.md) [[./z]] [[../B/y|why]] [u](z.md) [[z]] [[B/y]]\n",
    "A/z.md": "z\n",
    "B/y.md": "y\n",
  };

  test("relative links are recomputed from the new folder; links that still resolve stay as written", () => {
    const p = plan(files, "A/x.md", "C/D/x.md");
    expect(p.text("A/x.md")).toBe("[r](../../B/y.md) [s](../../A/z.md) [[../../A/z]] [[../../B/y|why]] [u](z.md) [[z]] [[B/y]]\n");
    applyAndResolve(p.edits, "A/x.md", "C/D/x.md", files);
  });

  test("links to the moved file are regenerated in the vault's format, as Obsidian does, even when they were relative", () => {
    const f = { "A/x.md": "[s](./z.md) [[./z#H]]\n", "A/z.md": "z\n", "B/z.md": "z\n" };
    const p = plan(f, "A/z.md", "A/sub/z.md");
    expect(p.text("A/x.md")).toBe("[s](A/sub/z.md) [[A/sub/z#H]]\n");
    applyAndResolve(p.edits, "A/z.md", "A/sub/z.md", f);
    const q = plan(f, "A/z.md", "A/sub/z.md", "relative");
    expect(q.text("A/x.md")).toBe("[s](sub/z.md) [[sub/z#H]]\n");
  });

  test("a relative link inside the moved note that must change stays relative, keeping its ./", () => {
    const f = { "A/x.md": "[[./z]] [[./w]]\n", "A/z.md": "z\n", "A/sub/z.md": "z2\n", "A/w.md": "w\n" };
    const p = plan(f, "A/x.md", "A/sub/x.md");
    expect(p.text("A/x.md")).toBe("[[../z]] [[../w]]\n");
    applyAndResolve(p.edits, "A/x.md", "A/sub/x.md", f);
    const g = { "A/sub/x.md": "[[./z]] [z](./z.md)\n", "A/z.md": "z\n", "A/sub/z.md": "z2\n" };
    const q = plan(g, "A/sub/x.md", "A/x.md");
    expect(q.text("A/sub/x.md")).toBe("[[./sub/z]] [z](./sub/z.md)\n");
    applyAndResolve(q.edits, "A/sub/x.md", "A/x.md", g);
  });
});

describe("near-folder preference", () => {
  test("a bare link that resolved through the moved note's old folder gets the path it now needs", () => {
    // From Zed/, Zed/Note.md is near; from C/ both are far and the shorter B/Note.md would win.
    const files = { "Zed/x.md": "[[Note]] [[Other]]\n", "Zed/Note.md": "z\n", "B/Note.md": "b\n", "Other.md": "o\n" };
    const p = plan(files, "Zed/x.md", "C/x.md");
    expect(p.text("Zed/x.md")).toBe("[[Zed/Note]] [[Other]]\n");
    applyAndResolve(p.edits, "Zed/x.md", "C/x.md", files);
  });
});

describe("refusals", () => {
  test("unknown source, taken destination", () => {
    sb = sandbox({ "a.md": "[[b]]\n", "b.md": "b\n" });
    const ctx = sb.context();
    runIndex(ctx.vault);
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as IndxError).code;
      }
      return null;
    };
    expect(code(() => planMove(ctx.vault, ctx.index, "nope.md", "x.md"))).toBe("not_found");
    expect(code(() => planMove(ctx.vault, ctx.index, "a.md", "b.md"))).toBe("already_exists");
    expect(planMove(ctx.vault, ctx.index, "a.md", "a.md").edits).toEqual([]);
    // A name a wikilink cannot carry is refused rather than written as a broken link.
    expect(code(() => planMove(ctx.vault, ctx.index, "b.md", "b#2.md"))).toBe("validation_failed");
    ctx.close();
  });
});

describe("hostile canvases", () => {
  const depth = 50_000;
  const nested = `{"nodes":[{"id":"a","type":"file","file":"Note.md","x":0,"y":0,"width":1,"height":1,"extra":${"[".repeat(depth)}"Note.md"${"]".repeat(depth)}}],"edges":[]}`;

  test("a canvas nested 50,000 levels deep is parse_failed at once, not a stack overflow", () => {
    const err = (() => {
      try {
        jsonStringSpans(nested);
      } catch (e) {
        return e as IndxError;
      }
    })();
    expect(err?.code).toBe("parse_failed");
    expect(err?.message).toContain("deeper than");
  });

  // The timeout is a guard, not a benchmark: before the depth bound this plan took about 18 s.
  test("a move next to it leaves it alone and rewrites the other links", () => {
    const { edits, text } = plan({ "Note.md": "# Note\n", "Deep.canvas": nested, "Ref.md": "see [[Note]]\n" }, "Note.md", "Moved/Renamed.md");
    expect(text("Ref.md")).toBe("see [[Renamed]]\n");
    expect(edits.some((e) => e.path === "Deep.canvas")).toBe(false);
  }, 5000);
});
