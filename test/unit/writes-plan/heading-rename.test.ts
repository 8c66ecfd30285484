/** planHeadingRename: links whose subpath starts with the renamed heading get the new heading. */
import { afterEach, describe, expect, test } from "bun:test";
import { etagOf } from "../../../src/core/hash.ts";
import { runIndex } from "../../../src/index/build/indexer.ts";
import { planHeadingRename } from "../../../src/links/rewrite.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

const NOTE = "# Guide\n\n## Step 1: Setup\n\ntext\n\n### Details\n\nsee [[#Step 1 Setup]] and [[#step 1 setup#Details|d]] and [[#Other]]\n";
const RENAMED = NOTE.replace("## Step 1: Setup", "## Getting started: part 1");

const FILES = {
  "Guide.md": NOTE,
  "a.md": [
    "---",
    'up: "[[Guide#Step 1 Setup]]"',
    "---",
    "[[Guide#Step 1 Setup]] [[Guide#STEP 1: SETUP|alias]] ![[Guide#Step 1 Setup#Details]]",
    "[m](Guide.md#Step%201%20Setup) [n](<Guide.md#Step 1 Setup>) [[Guide#^blk]] [[Guide#Other]]",
    "[[Elsewhere#Step 1 Setup]] `[[Guide#Step 1 Setup]]`",
    "",
  ].join("\n"),
  "Elsewhere.md": "## Step 1 Setup\n",
  "board.canvas":
    '{"nodes":[{"id":"n","type":"file","file":"Guide.md","subpath":"#Step 1 Setup","x":0,"y":0,"width":1,"height":1},' +
    '{"id":"m","type":"file","file":"Elsewhere.md","subpath":"#Step 1 Setup","x":0,"y":0,"width":1,"height":1},' +
    '{"id":"t","type":"text","text":"see [[Guide#Step 1 Setup|setup]]","x":0,"y":0,"width":1,"height":1}]}',
};

function planned(selfText?: string) {
  sb = sandbox(FILES);
  const ctx = sb.context();
  runIndex(ctx.vault);
  const plan = planHeadingRename(ctx.vault, ctx.index, "Guide.md", "Step 1: Setup", "Getting started: part 1", selfText);
  ctx.close();
  return plan.edits;
}

describe("planHeadingRename", () => {
  test("links in other notes, frontmatter, Markdown links (encoded or <…>), canvas subpaths and text cards", () => {
    const edits = planned(RENAMED);
    const text = (p: string) => edits.find((e) => e.path === p)?.text;
    // stripHeadingForLink drops the ":" Obsidian cannot keep in a link.
    expect(text("a.md")).toBe(
      [
        "---",
        'up: "[[Guide#Getting started part 1]]"',
        "---",
        "[[Guide#Getting started part 1]] [[Guide#Getting started part 1|alias]] ![[Guide#Getting started part 1#Details]]",
        "[m](Guide.md#Getting%20started%20part%201) [n](<Guide.md#Getting started part 1>) [[Guide#^blk]] [[Guide#Other]]",
        "[[Elsewhere#Step 1 Setup]] `[[Guide#Step 1 Setup]]`",
        "",
      ].join("\n"),
    );
    expect(text("board.canvas")).toBe(
      FILES["board.canvas"]
        .replace('"subpath":"#Step 1 Setup","x"', '"subpath":"#Getting started part 1","x"')
        .replace("[[Guide#Step 1 Setup|setup]]", "[[Guide#Getting started part 1|setup]]"),
    );
    expect(edits.find((e) => e.path === "a.md")!.etag).toBe(etagOf(FILES["a.md"]));
  });

  test("the note itself: its edit starts from the caller's new text and keeps the etag of the file on disk", () => {
    const edits = planned(RENAMED);
    const self = edits.find((e) => e.path === "Guide.md")!;
    expect(self.etag).toBe(etagOf(NOTE));
    expect(self.text).toBe(
      RENAMED.replace("[[#Step 1 Setup]]", "[[#Getting started part 1]]").replace("[[#step 1 setup#Details|d]]", "[[#Getting started part 1#Details|d]]"),
    );
    expect(self.changes.map((c) => c.line)).toEqual([3, 9]);
  });

  test("without selfText the note's own links are planned against the file on disk", () => {
    const self = planned().find((e) => e.path === "Guide.md")!;
    expect(self.text).toBe(
      NOTE.replace("[[#Step 1 Setup]]", "[[#Getting started part 1]]").replace("[[#step 1 setup#Details|d]]", "[[#Getting started part 1#Details|d]]"),
    );
  });
});
