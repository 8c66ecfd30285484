import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { cellText } from "../../src/bases/cells.ts";
import { baseQuery } from "../../src/bases/ops.ts";
import { parseBase } from "../../src/bases/parse.ts";
import type { OutputOf } from "../../src/ops/define.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The .base files of kepano's vault (fixtures/kepano, written by Obsidian's CEO in Obsidian), run
 * over that vault. Expected rows are written by hand from the notes' frontmatter and links.
 */
const KEPANO = join(import.meta.dir, "..", "..", "fixtures", "kepano");
const BASES = "Templates/Bases";

let sb: Sandbox;
let ctx: App;

beforeAll(async () => {
  sb = sandbox();
  cpSync(KEPANO, sb.vault, { recursive: true });
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
});

afterAll(() => {
  ctx.close();
  sb.cleanup();
});

type Result = OutputOf<typeof baseQuery>;

/** A view of a kepano base; `embeddedIn` runs it as the embed in that note does (`this` = the note). */
async function run(file: string, view?: string, embeddedIn?: string): Promise<Result> {
  const input = embeddedIn ? { base: readFileSync(join(KEPANO, BASES, file), "utf8"), path: embeddedIn } : { path: `${BASES}/${file}` };
  return invoke(baseQuery, ctx, { ...input, ...(view ? { view } : {}) });
}

/** Each row as `path: cell | cell | …` in column order. */
const table = (r: Result) => r.rows.map((row) => `${row.path}: ${r.columns.map((c) => cellText(row.cells[c.id]!)).join(" | ")}`);

test("all 30 .base files of the vault parse", () => {
  const files = readdirSync(join(KEPANO, BASES)).filter((f) => f.endsWith(".base"));
  expect(files).toHaveLength(30);
  for (const f of files) expect(parseBase(readFileSync(join(KEPANO, BASES, f), "utf8"), f).views.length).toBeGreaterThan(0);
});

test("every view of all 30 .base files runs: no view fails, none is an error cell", async () => {
  const files = readdirSync(join(KEPANO, BASES)).filter((f) => f.endsWith(".base"));
  let views = 0;
  const failed: string[] = [];
  for (const f of files) {
    for (const view of parseBase(readFileSync(join(KEPANO, BASES, f), "utf8"), f).views) {
      views++;
      try {
        const r = await run(f, view.name);
        const errors = r.rows.flatMap((row) => Object.values(row.cells).filter((c) => c.type === "error"));
        if (errors.length) failed.push(`${f} › ${view.name}: ${JSON.stringify(errors[0])}`);
      } catch (err) {
        failed.push(`${f} › ${view.name}: ${(err as Error).message}`);
      }
    }
  }
  expect(failed).toEqual([]);
  expect(views).toBeGreaterThan(30);
});

test("Shows › Last seen: the legacy not(empty(note.last)) keeps the shows seen, newest first", async () => {
  const r = await run("Shows.base", "Last seen");
  expect(r.rows.length).toBeGreaterThan(0);
  for (const row of r.rows) expect(row.cells.last?.type).not.toBe("null");
  const all = await run("Shows.base", "All");
  expect(r.matched).toBe(all.rows.filter((row) => row.cells.last?.type !== "null").length);
});

test("a view whose filter does not compile is that view's error, naming it; the other views of the base run", async () => {
  const base = [
    "filters: 'file.ext == \"base\"'",
    "views:",
    "  - {type: table, name: First}",
    "  - {type: table, name: Broken, filters: 'nosuch(file.name)'}",
    "  - {type: table, name: Last}",
  ].join("\n");
  for (const view of ["First", "Last", undefined]) expect((await invoke(baseQuery, ctx, { base, ...(view ? { view } : {}) })).total).toBe(30);
  const err = await invoke(baseQuery, ctx, { base, view: "Broken" }).then(
    () => null,
    (e: unknown) => e as { code: string; message: string; details: Record<string, unknown> },
  );
  expect(err?.code).toBe("parse_failed");
  expect(err?.message).toContain("View 'Broken'");
  expect(err?.message).toContain("Unknown function 'nosuch'");
  expect(err?.details).toMatchObject({ view: "Broken", key_path: "views[1].filters" });
});

describe("kepano views", () => {
  test("Books › Books: two books, sorted by name, with display names and typed cells", async () => {
    const r = await run("Books.base", "Books");
    expect(r.views).toEqual(["Books", "Top rated", "Author", "Genre"]);
    expect(r.columns.map((c) => c.name)).toEqual(["Name", "Author", "length", "Year", "rating", "topics", "last"]);
    expect(table(r)).toEqual([
      "References/Out of Control.md: Out of Control.md | Kevin Kelly |  | 1992 | 7 | Emergence | 2023-09-12",
      "References/The Machine Stops.md: The Machine Stops.md | E. M. Forster |  | 1909 | 7 | Humanism | 2023-09-12",
    ]);
    const first = r.rows[0]!.cells;
    expect(first.author).toEqual({
      type: "list",
      value: [{ type: "link", value: { path: "References/Kevin Kelly.md", display: "Kevin Kelly", resolved: true } }],
    });
    expect(first.year).toEqual({ type: "number", value: 1992 });
    expect(first.last).toEqual({ type: "date", value: "2023-09-12" });
    expect(first.length).toEqual({ type: "null", value: null });
  });

  test("Books › Top rated: equal `last` dates keep their order (a stable sort)", async () => {
    expect((await run("Books.base", "Top rated")).rows.map((r) => r.path)).toEqual(["References/Out of Control.md", "References/The Machine Stops.md"]);
  });

  test("Books › Author, embedded in Kevin Kelly: list(author).contains(this)", async () => {
    expect(table(await run("Books.base", "Author", "References/Kevin Kelly.md"))).toEqual([
      "References/Out of Control.md: Out of Control.md | 1992 | Futurism, Nonfiction",
    ]);
  });

  test("Places › Places: empty `last` ties, then type ascending", async () => {
    expect(table(await run("Places.base", "Places"))).toEqual([
      "References/Kyoto.md: Kyoto.md | 7 | Japan | Cities | ",
      "References/Fushimi Inari.md: Fushimi Inari.md | 7 | Kyoto, Japan | Parks, Shrines | ",
    ]);
  });

  test("Places › Location, embedded in Kyoto: the places located in Kyoto", async () => {
    expect((await run("Places.base", "Location", "References/Kyoto.md")).rows.map((r) => r.path)).toEqual(["References/Fushimi Inari.md"]);
  });

  test("People › All people: three people; the Age formula of a missing birthday is empty", async () => {
    const r = await run("People.base", "All people");
    expect(r.rows.map((x) => x.path)).toEqual(["References/Kevin Kelly.md", "References/Paul Chambers.md", "References/Steph Ango.md"]);
    expect(r.rows.map((x) => x.cells["formula.Age"])).toEqual([null, null, null].map(() => ({ type: "null", value: null })));
  });

  test("Meetings › Person, embedded in Steph Ango", async () => {
    expect(table(await run("Meetings.base", "Person", "References/Steph Ango.md"))).toEqual([
      "Notes/2023-09-12 Meeting with Steph.md: 2023-09-12 Meeting with Steph.md | 2023-09-12 |  | Steph Ango",
    ]);
  });

  test("Movies › Favorites: note.rating > 6", async () => {
    expect(table(await run("Movies.base", "Favorites"))).toEqual([
      "References/Blade Runner.md: Blade Runner.md | Ridley Scott | 1982 | Sci-fi | 7 |  | 2023-09-14",
    ]);
  });

  test("Everything › Images: every file that is not a note, base, canvas or pdf, attachments included", async () => {
    expect((await run("Everything.base", "Images")).rows.map((r) => r.path)).toEqual(["LICENSE", "Attachments/out-of-control.jpg"]);
  });

  test("Backlinks, embedded in Out of Control: file.hasLink(this)", async () => {
    expect(table(await run("Backlinks.base", "Backlinks", "References/Out of Control.md"))).toEqual([
      "Notes/2023-09-12 Meeting with Steph.md: 2023-09-12 Meeting with Steph.md | Meetings | ",
    ]);
  });

  test("Clippings: created descending, ties in path order, the one without a date last", async () => {
    expect((await run("Clippings.base", "Clippings")).rows.map((r) => r.path)).toEqual([
      "Notes/Evergreen notes turn ideas into objects that you can manipulate.md",
      "Clippings/68 Bits of Unsolicited Advice.md",
      "Clippings/In good hands.md",
      "References/Brown butter nectarine tart.md",
      "Clippings/Buy wisely.md",
    ]);
  });

  test("Related, embedded in Out of Control: formulas over this.file.links, sorted by overlap then backlinks", async () => {
    const r = await run("Related.base", undefined, "References/Out of Control.md");
    expect(r.rows.map((x) => x.path)).toEqual([
      "Notes/2023-09-12 Meeting with Steph.md",
      "Categories/Books.md",
      "References/Kevin Kelly.md",
      "Attachments/out-of-control.jpg",
    ]);
    expect(r.rows[0]!.cells["formula.Related"]).toEqual({
      type: "list",
      value: [{ type: "link", value: { path: "Emergence", display: "Emergence", resolved: false } }],
    });
  });

  test("Games (legacy `display` names): the one game, its `last` a link where types.json says date", async () => {
    const r = await run("Games.base", "Games");
    expect(r.columns.map((c) => c.name)).toEqual(["Games", "Maker", "Genre", "Year", "Rating", "Last played"]);
    expect(table(r)).toEqual([
      "References/The Legend of Zelda Breath of the Wild.md: The Legend of Zelda Breath of the Wild.md | Nintendo | Open world | 2017 | 7 | 2022-04",
    ]);
  });

  test("an inline base over the vault: groupBy, limit, built-in and custom summaries", async () => {
    const r = await invoke(baseQuery, ctx, {
      base: [
        "filters: 'year > 1900'",
        "formulas:",
        "  decade: (year / 10).floor() * 10",
        "summaries:",
        "  span: values.max() - values.min()",
        "views:",
        "  - type: table",
        "    name: By decade",
        "    order: [file.basename, year, formula.decade]",
        "    sort: [{property: year, direction: DESC}]",
        "    groupBy: {property: formula.decade, direction: ASC}",
        "    limit: 5",
        "    summaries: {year: Average, formula.decade: span}",
      ].join("\n"),
    });
    // Six notes have a year; the limit keeps the five newest, then they are grouped.
    expect(r.matched).toBe(6);
    expect(r.total).toBe(5);
    expect(r.groups?.map((g) => [cellText(g.key), g.count, cellText(g.summaries.year!)])).toEqual([
      ["1950", 1, "1957"],
      ["1980", 1, "1982"],
      ["1990", 1, "1992"],
      ["2010", 1, "2017"],
      ["2020", 1, "2020"],
    ]);
    expect(r.rows.map((x) => [x.path, x.group])).toEqual([
      ["References/Bass on Top.md", 0],
      ["References/Blade Runner.md", 1],
      ["References/Out of Control.md", 2],
      ["References/The Legend of Zelda Breath of the Wild.md", 3],
      ["Notes/Minimal Theme.md", 4],
    ]);
    expect(r.summaries).toEqual({ year: { type: "number", value: (1957 + 1982 + 1992 + 2017 + 2020) / 5 }, "formula.decade": { type: "number", value: 70 } });
  });
});
