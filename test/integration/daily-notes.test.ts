/** daily_note and the prompts that use it, on a vault with its own daily-notes settings and templates, over every surface. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { wallTimeAt } from "../../src/dates/calendar.ts";
import { formatMoment } from "../../src/dates/moment-format.ts";
import { runIndex } from "../../src/index/build/indexer.ts";
import { noteWrite } from "../../src/notes/write-ops.ts";
import { dailyNote } from "../../src/periodic/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Surfaces, startSurfaces } from "../support/surfaces.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

const DAILY_TEMPLATE = [
  "---",
  "created: {{date:YYYY-MM-DD[T]HH:mm}}",
  "---",
  "# {{Title}}",
  "",
  "Week {{date:WW}} · {{date:dddd, MMMM Do}} · yesterday: {{yesterday}} · next month: {{date+1M:YYYY-MM-DD}} · {{unknown}}",
  "",
  "## Tasks",
  "",
].join("\n");

const WEEKLY_TEMPLATE = "# Week {{title}}\n\nfrom {{monday:YYYY-MM-DD}} to {{sunday:YYYY-MM-DD}}\n";

const FILES = {
  ".obsidian/daily-notes.json": JSON.stringify({ folder: "Journal/Daily", format: "YYYY/MM-MMM/YYYY-MM-DD dddd", template: "Daily" }),
  ".obsidian/templates.json": JSON.stringify({ folder: "Meta/Templates", dateFormat: "DD.MM.YYYY", timeFormat: "HH:mm" }),
  ".obsidian/plugins/periodic-notes/data.json": JSON.stringify({
    daily: { enabled: false, format: "", folder: "", template: "" },
    weekly: { enabled: true, format: "GGGG-[W]WW", folder: "Journal/Weekly", template: "Meta/Templates/Weekly.md" },
  }),
  "Meta/Templates/Daily.md": DAILY_TEMPLATE,
  "Meta/Templates/Weekly.md": WEEKLY_TEMPLATE,
  "Meta/Templates/Meeting.md": "---\ntype: meeting\n---\n# {{title}}\n\nOn {{date}} ({{DATE:YYYY}}) at {{time:H}}h.\n",
  "Welcome.md": "# Welcome\n",
};

/** What the template becomes for a Wednesday, 7 January 2026 (the time of day varies). */
function expectedDaily(text: string, day: { name: string; title: string; long: string; week: string; yesterday: string; nextMonth: string }) {
  const [, time] = /^---\ncreated: \d{4}-\d{2}-\d{2}T(\d{2}:\d{2})\n/.exec(text) ?? [];
  expect(time).toBeDefined();
  expect(text).toBe(
    [
      "---",
      `created: ${day.name.slice(0, 10)}T${time}`,
      "---",
      `# ${day.title}`,
      "",
      `Week ${day.week} · ${day.long} · yesterday: ${day.yesterday} · next month: ${day.nextMonth} · {{unknown}}`,
      "",
      "## Tasks",
      "",
    ].join("\n"),
  );
}

let sb: Sandbox;
let s: Surfaces;

beforeAll(async () => {
  sb = sandbox(FILES);
  s = await startSurfaces(sb);
});

afterAll(async () => {
  await s?.close();
  sb?.cleanup();
});

const read = (path: string) => readFileSync(join(sb.vault, path), "utf8");

describe("daily_note", () => {
  test("creates the note where daily-notes.json says, from the template, once (core)", async () => {
    const first = await invoke(dailyNote, s.ctx, { date: "2026-01-07", create: true, tz: "UTC" });
    expect(first).toMatchObject({
      path: "Journal/Daily/2026/01-Jan/2026-01-07 Wednesday.md",
      period: "daily",
      date: "2026-01-07",
      exists: true,
      created: true,
      template: "Meta/Templates/Daily.md",
      warnings: [],
    });
    expectedDaily(read(first.path), {
      name: "2026-01-07",
      title: "2026-01-07 Wednesday",
      long: "Wednesday, January 7th",
      week: "02",
      yesterday: "2026/01-Jan/2026-01-06 Tuesday",
      nextMonth: "2026-02-07",
    });
    expect(first.content).toBe(read(first.path));

    // Idempotent: a second create finds the note and leaves its bytes alone, even after an edit.
    sb.write(first.path, `${first.content}- [ ] call Ada\n`);
    const edited = read(first.path);
    const again = await invoke(dailyNote, s.ctx, { date: "2026-01-07", create: true });
    expect(again).toMatchObject({ path: first.path, exists: true, created: false, content: edited });
    expect(read(first.path)).toBe(edited);
  });

  test("without create it only reports where the note would be", async () => {
    const r = await invoke(dailyNote, s.ctx, { date: "2026-03-01" });
    expect(r).toMatchObject({ path: "Journal/Daily/2026/03-Mar/2026-03-01 Sunday.md", exists: false, created: false, etag: null, content: null });
    expect(existsSync(join(sb.vault, r.path))).toBe(false);
  });

  test("REST: POST /v1/daily creates (201) and then finds (200) the note, with its ETag", async () => {
    const created = await s.rest("POST", "/v1/daily", { date: "2026-01-08", create: true });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ path: "Journal/Daily/2026/01-Jan/2026-01-08 Thursday.md", created: true });
    expect(created.headers.get("etag")).toBe(`"${created.body.data.etag}"`);
    expect(read(created.body.data.path)).toContain("# 2026-01-08 Thursday\n");
    const again = await s.rest("POST", "/v1/daily", { date: "2026-01-08", create: true });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ created: false, etag: created.body.data.etag });
  });

  test("CLI: indx daily --date … --create, then the same again", async () => {
    const out = await s.cli(["daily", "--date", "2026-01-09", "--create", "--json"]);
    expect(out.code).toBe(0);
    const first = JSON.parse(out.stdout);
    expect(first).toMatchObject({ path: "Journal/Daily/2026/01-Jan/2026-01-09 Friday.md", created: true });
    expect(read(first.path)).toContain("Week 02 · Friday, January 9th");
    const again = JSON.parse((await s.cli(["daily", "--date", "2026-01-09", "--create", "--json"])).stdout);
    expect(again).toMatchObject({ created: false, etag: first.etag });
  });

  test("MCP: the daily_note tool creates, and a read-only session may look but not create", async () => {
    const client = await s.mcp();
    const r = await client.callTool({ name: "daily_note", arguments: { date: "2026-01-10", create: true } });
    expect(r.structuredContent).toMatchObject({ path: "Journal/Daily/2026/01-Jan/2026-01-10 Saturday.md", created: true });
    const reader = await s.mcp(["vault:read"]);
    const look = await reader.callTool({ name: "daily_note", arguments: { date: "2026-01-10" } });
    expect(look.structuredContent).toMatchObject({ exists: true, created: false });
    const refused = await reader.callTool({ name: "daily_note", arguments: { date: "2026-01-11", create: true } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("forbidden");
    expect(existsSync(join(sb.vault, "Journal/Daily/2026/01-Jan/2026-01-11 Sunday.md"))).toBe(false);
  });

  test("weekly notes come from Periodic Notes: ISO weeks, {{monday:…}} to {{sunday:…}}", async () => {
    const r = await invoke(dailyNote, s.ctx, { date: "2026-01-07", period: "weekly", create: true });
    expect(r).toMatchObject({ path: "Journal/Weekly/2026-W02.md", date: "2026-01-05", created: true });
    expect(read(r.path)).toBe("# Week 2026-W02\n\nfrom 2026-01-05 to 2026-01-11\n");
  });

  test("typed errors: a period nobody configured, a bad day or zone; a missing template is a warning", async () => {
    const monthly = await s.rest("POST", "/v1/daily", { period: "monthly" });
    expect(monthly.status).toBe(400);
    expect(monthly.body.error.details).toMatchObject({ reason: "not_configured" });
    expect((await s.rest("POST", "/v1/daily", { date: "2026-02-30" })).status).toBe(400);
    expect((await s.rest("POST", "/v1/daily", { tz: "Mars/Olympus" })).status).toBe(400);

    const bare = sandbox({ ".obsidian/daily-notes.json": JSON.stringify({ template: "Gone" }) });
    const ctx = bare.context();
    runIndex(ctx.vault);
    try {
      const r = await invoke(dailyNote, ctx, { date: "2026-01-07", create: true });
      expect(r).toMatchObject({ path: "2026-01-07.md", created: true, content: "", template: "Gone" });
      expect(r.warnings.map((w) => w.code)).toEqual(["template_missing"]);
    } finally {
      ctx.close();
      bare.cleanup();
    }
  });
});

describe("note_write from a named template", () => {
  const today = () => formatMoment(wallTimeAt(Date.now()), "DD.MM.YYYY");

  test("core: the template by name, its variables filled, the body after it, frontmatter merged", async () => {
    const r = await invoke(noteWrite, s.ctx, {
      path: "Meetings/Kick-off.md",
      template: "Meeting",
      body: "- agenda\n",
      frontmatter: { status: "open" },
      if_not_exists: true,
    });
    const [date, year] = [today(), today().slice(6)];
    expect(read("Meetings/Kick-off.md")).toMatch(
      new RegExp(`^---\ntype: meeting\nstatus: open\n---\n# Kick-off\n\nOn ${date} \\(${year}\\) at \\d{1,2}h\\.\n- agenda\n$`),
    );
    expect(r.frontmatter).toEqual({ type: "meeting", status: "open" });
  });

  test("REST and CLI: a vault path works too; a missing template is 404 and writes nothing", async () => {
    const put = await s.rest("PUT", "/v1/notes/Meetings/Retro.md", { template: "Meta/Templates/Meeting.md", body: "" });
    expect(put.status).toBe(201);
    expect(put.body.data.body).toStartWith("# Retro\n\nOn ");
    const out = await s.cli(["note", "update", "Meetings/Review.md", "--template", "Meeting", "--body", "notes", "--json"]);
    expect(out.code).toBe(0);
    expect(read("Meetings/Review.md")).toEndWith("h.\nnotes");
    const missing = await s.rest("PUT", "/v1/notes/Meetings/Nope.md", { template: "Nope", body: "" });
    expect(missing.status).toBe(404);
    expect(missing.body.error.details).toEqual({ field: "template" });
    expect(existsSync(join(sb.vault, "Meetings/Nope.md"))).toBe(false);
  });
});

describe("the prompts use the vault's daily notes", () => {
  test("daily_note names the configured path and the daily_note tool", async () => {
    const client = await s.mcp();
    const p = await client.getPrompt({ name: "daily_note", arguments: { date: "2026-01-07" } });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain("Journal/Daily/2026/01-Jan/2026-01-07 Wednesday.md");
    expect(text).toContain('daily_note with date "2026-01-07"');
    expect(text).not.toContain("Daily/2026-01-07.md");
  });

  test("weekly_review reads the daily notes' folder and saves to the weekly note", async () => {
    const client = await s.mcp();
    const p = await client.getPrompt({ name: "weekly_review", arguments: { week_of: "2026-01-07" } });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain('"Journal/Daily/**"');
    expect(text).toContain("Journal/Weekly/2026-W02.md");
    expect(text).not.toContain("Reviews/");
  });
});
