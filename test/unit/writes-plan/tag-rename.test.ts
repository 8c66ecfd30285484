/** planTagRename: frontmatter styles kept, nested tags rebased, code/links/URLs/comments untouched. */
import { afterEach, describe, expect, test } from "bun:test";
import type { IndxError } from "../../../src/core/errors.ts";
import { etagOf } from "../../../src/core/hash.ts";
import { runIndex } from "../../../src/index/build/indexer.ts";
import { planTagRename } from "../../../src/tags/rename.ts";
import { indexRows } from "../../support/index-rows.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";
import { applyEdits } from "./helpers.ts";

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

const BODY = [
  "# A #project heading tag",
  "",
  "Body #project and #Project/alpha/deep and #projectX and #projects and **#project**.",
  "`#project` in code, [[Note#project]] link, https://x.com/#project url, <!-- #project --> comment, %%#project%%, \\#project",
  "```",
  "#project",
  "```",
  "word#project is not a tag; [#project](http://x) is. - [ ] task #project/todo",
  "",
].join("\n");

const FILES: Record<string, string> = {
  "a.md": ["---", "tags:", "  - project", '  - "project/alpha"', "  - '#Project/beta'", "  - projects", "  - other # comment", "---", BODY].join("\n"),
  "b.md": '---\ntags: [project, "project/x", other]\ntitle: b\n---\ntext\n',
  "c.md": "---\nTags: project\n---\nc\n",
  "d.md": "---\ntag: project, other\n---\nlegacy key only\n",
  "e.md": '---\ntags: "#project"\nnote: "#project in a text property is not a tag"\n---\n',
  "f.md": "---\ntags: [projects]\n---\n#projectile #project_x\n",
  "g.md": "crlf #project\r\nline two #project/a\r\n",
};

const EXPECTED: Record<string, string> = {
  "a.md": [
    "---",
    "tags:",
    "  - work/main",
    '  - "work/main/alpha"',
    "  - '#work/main/beta'",
    "  - projects",
    "  - other # comment",
    "---",
    BODY.replace("# A #project heading", "# A #work/main heading")
      .replace("Body #project and #Project/alpha/deep", "Body #work/main and #work/main/alpha/deep")
      .replace("**#project**", "**#work/main**")
      .replace("[#project](http://x) is. - [ ] task #project/todo", "[#work/main](http://x) is. - [ ] task #work/main/todo"),
  ].join("\n"),
  "b.md": '---\ntags: [work/main, "work/main/x", other]\ntitle: b\n---\ntext\n',
  "c.md": "---\nTags: work/main\n---\nc\n",
  "d.md": "---\ntag: work/main, other\n---\nlegacy key only\n",
  "e.md": '---\ntags: "#work/main"\nnote: "#project in a text property is not a tag"\n---\n',
  "g.md": "crlf #work/main\r\nline two #work/main/a\r\n",
};

function vault() {
  sb = sandbox(FILES);
  const ctx = sb.context();
  runIndex(ctx.vault);
  return ctx;
}

describe("planTagRename", () => {
  test("every occurrence the indexer sees, and nothing else", () => {
    const ctx = vault();
    const plan = planTagRename(ctx.vault, ctx.index, "#project", "work/main");
    const texts = Object.fromEntries(plan.edits.map((e) => [e.path, e.text]));
    expect(texts).toEqual(EXPECTED);
    expect(plan.notes).toBe(6);
    // a: 3 frontmatter + 6 body; b: 2; c, d, e: 1 each; g: 2.
    expect(plan.occurrences).toBe(16);
    for (const e of plan.edits) expect(e.etag).toBe(etagOf(FILES[e.path]!));
    ctx.close();
  });

  test("the dry run is the plan that gets applied; afterwards the index holds only the new tag", () => {
    const ctx = vault();
    const dry = planTagRename(ctx.vault, ctx.index, "project", "work/main");
    const again = planTagRename(ctx.vault, ctx.index, "project", "work/main");
    expect(again).toEqual(dry);
    applyEdits(sb!.vault, again.edits);
    runIndex(ctx.vault);
    const tags = indexRows<{ tag: string }>(ctx, "SELECT DISTINCT tag_lower AS tag FROM tags ORDER BY tag").map((r) => r.tag);
    expect(tags.filter((t) => t === "project" || t.startsWith("project/"))).toEqual([]);
    expect(tags).toContain("work/main");
    expect(tags).toContain("work/main/alpha/deep");
    expect(tags).toContain("projects");
    // A second plan finds nothing left to do.
    expect(planTagRename(ctx.vault, ctx.index, "project", "work/main").edits).toEqual([]);
    ctx.close();
  });

  test("a case-only rename and a rename into its own subtree", () => {
    const ctx = vault();
    const upper = planTagRename(ctx.vault, ctx.index, "project", "Project");
    expect(upper.edits.find((e) => e.path === "b.md")!.text).toBe('---\ntags: [Project, "Project/x", other]\ntitle: b\n---\ntext\n');
    const nested = planTagRename(ctx.vault, ctx.index, "project", "project/old");
    expect(nested.edits.find((e) => e.path === "g.md")!.text).toBe("crlf #project/old\r\nline two #project/old/a\r\n");
    ctx.close();
  });

  test("invalid tags are validation_failed", () => {
    const ctx = vault();
    for (const [from, to] of [
      ["1984", "x"],
      ["project", "two words"],
      ["project", "a//b"],
      ["project", "#"],
      ["pro.ject", "x"],
    ] as const) {
      let code: string | null = null;
      try {
        planTagRename(ctx.vault, ctx.index, from, to);
      } catch (e) {
        code = (e as IndxError).code;
      }
      expect({ from, to, code }).toEqual({ from, to, code: "validation_failed" });
    }
    ctx.close();
  });
});
