import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { noteCapture } from "../../src/notes/capture-ops.ts";
import { vaultValidateFrontmatter } from "../../src/notes/validate-ops.ts";
import { invoke } from "../support/ops.ts";
import { type Surfaces, startSurfaces } from "../support/surfaces.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** note_capture and vault_validate_frontmatter (docs/decisions.md, "Capture and property checks"), on all three surfaces. */

let sb: Sandbox;
let s: Surfaces;

beforeAll(async () => {
  sb = sandbox({
    ".obsidian/types.json": JSON.stringify({ types: { due: "date", rating: "number", done: "checkbox", people: "multitext" } }),
    "Good.md": "---\ndue: 2024-05-01\nrating: 4\ndone: false\npeople: [Ada]\nstatus: open\n---\nok\n",
    "Bad.md": "---\ndue: next week\nrating: four\ndone: maybe\npeople: Ada\nstatus: open\n---\nbad\n",
    "Bare.md": "no frontmatter\n",
    "Empty.md": "---\ndue:\nrating:\nstatus: open\n---\nempty values fit every type\n",
  });
  Object.assign(sb.env, { INDX_CAPTURE_FOLDER: "Inbox" });
  s = await startSurfaces(sb);
  await s.ctx.updateIndex({ build: true });
});
afterAll(async () => {
  await s.close();
  sb.cleanup();
});

describe("note_capture", () => {
  test("saves to the inbox under the title, never overwriting, and returns path and etag", async () => {
    const a = await invoke(noteCapture, s.ctx, { text: "first", title: "Printer: quote?" });
    expect(a.path).toBe("Inbox/Printer quote.md");
    expect(a.etag).toMatch(/\S/);
    const b = await invoke(noteCapture, s.ctx, { text: "second", title: "Printer: quote?" });
    expect(b.path).toBe("Inbox/Printer quote 2.md");
    expect(readFileSync(join(sb.vault, "Inbox/Printer quote.md"), "utf8")).toBe("first");
    const dry = await invoke(noteCapture, s.ctx, { text: "third", title: "Printer: quote?", dry_run: true });
    expect(dry).toMatchObject({ path: "Inbox/Printer quote 3.md", dry_run: true });
  });

  test("without a title the name is the date and time; REST and the CLI capture too", async () => {
    const dated = await invoke(noteCapture, s.ctx, { text: "untitled", folder: "Elsewhere" });
    expect(dated.path).toMatch(/^Elsewhere\/\d{4}-\d{2}-\d{2} \d{6}\.md$/);
    const rest = await s.rest("POST", "/v1/notes/capture", { text: "from rest", title: "Rest" });
    expect(rest.status).toBe(200);
    expect(rest.body.data?.path ?? rest.body.path).toBe("Inbox/Rest.md");
    const cli = await s.cli(["note", "capture", "from the cli", "--title", "Cli", "--json"]);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).path).toBe("Inbox/Cli.md");
    const mcp = await s.mcp();
    const tool = await mcp.callTool({ name: "note_capture", arguments: { text: "from mcp", title: "Mcp" } });
    expect((tool.structuredContent as { path: string }).path).toBe("Inbox/Mcp.md");
  });
});

describe("vault_validate_frontmatter", () => {
  test("lists values that break the declared types, with the reason; empty values pass", async () => {
    const out = await invoke(vaultValidateFrontmatter, s.ctx, { path_glob: "*.md" });
    const bad = out.problems.filter((p) => p.path === "Bad.md").map((p) => p.key);
    expect(bad.sort()).toEqual(["done", "due", "people", "rating"]);
    expect(out.problems.filter((p) => p.path !== "Bad.md")).toEqual([]);
    expect(out.problems.find((p) => p.key === "due")?.message).toContain("date (YYYY-MM-DD)");
  });

  test("a required key (properties.required) missing or empty is listed for each note", async () => {
    const cli = await s.cli(["config", "set", "properties.required", "status,rating"]);
    expect(cli.code).toBe(0);
    const fresh = sb.context();
    try {
      const out = await invoke(vaultValidateFrontmatter, fresh, { path_glob: "*.md" });
      const missing = out.problems.filter((p) => p.reason === "missing_required").map((p) => `${p.path}:${p.key}`);
      expect(missing.sort()).toEqual(["Bare.md:rating", "Bare.md:status", "Empty.md:rating"]);
    } finally {
      fresh.close();
    }
  });
});
