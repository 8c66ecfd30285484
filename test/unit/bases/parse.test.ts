import { describe, expect, test } from "bun:test";
import { baseBlocks } from "../../../src/bases/blocks.ts";
import { parseBase } from "../../../src/bases/parse.ts";
import { compileBase } from "../../../src/bases/plan.ts";
import { IndxError } from "../../../src/core/errors.ts";

/** Parses and compiles a base; the IndxError it throws, or null. */
function problem(text: string): IndxError | null {
  try {
    compileBase(parseBase(text, "x.base"), text, "x.base");
    return null;
  } catch (err) {
    if (err instanceof IndxError) return err;
    throw err;
  }
}

describe("parsing a base", () => {
  test("an empty file is one table view named Table", () => {
    expect(parseBase("", "x.base").views).toEqual([
      { type: "table", name: "Table", filters: null, order: [], sort: [], groupBy: null, limit: null, summaries: {}, options: {} },
    ]);
  });

  test("filters nest and/or/not; global and view filters; views keep their layout keys", () => {
    const base = parseBase(
      [
        "filters:",
        "  and:",
        "    - file.hasTag('a')",
        "    - or: [x > 1, {not: [y]}]",
        "views:",
        "  - type: cards",
        "    name: C",
        "    image: note.cover",
        "    cardSize: 200",
        "    filters: 'z'",
      ].join("\n"),
      "x.base",
    );
    expect(base.filters).toEqual({
      kind: "and",
      items: [
        { kind: "expression", source: "file.hasTag('a')", path: ["filters", "and", 0] },
        {
          kind: "or",
          items: [
            { kind: "expression", source: "x > 1", path: ["filters", "and", 1, "or", 0] },
            { kind: "not", items: [{ kind: "expression", source: "y", path: ["filters", "and", 1, "or", 1, "not", 0] }] },
          ],
        },
      ],
    });
    expect(base.views[0]).toMatchObject({
      type: "cards",
      name: "C",
      options: { image: "note.cover", cardSize: 200 },
      filters: { kind: "expression", source: "z" },
    });
  });

  test("legacy forms: top-level display, sort column, group_by", () => {
    const base = parseBase(
      [
        "display:",
        "  file.name: Games",
        "views:",
        "  - type: table",
        "    name: T",
        "    sort: [{column: note.rating, direction: DESC}]",
        "    group_by: {property: genre}",
      ].join("\n"),
      "x.base",
    );
    expect(base.displayNames.get("file.name")).toBe("Games");
    expect(base.views[0]!.sort).toEqual([{ property: "note.rating", direction: "DESC" }]);
    expect(base.views[0]!.groupBy).toEqual({ property: "genre", direction: "ASC" });
  });

  test("bad YAML is parse_failed with its line and column", () => {
    const err = problem("views:\n  - type: table\n   name: bad\n");
    expect(err?.code).toBe("parse_failed");
    expect(err?.details).toMatchObject({ line: 3, key_path: null });
  });

  test("a wrong shape is parse_failed with the key path, line and column", () => {
    expect(problem("views:\n  - type: table\n    name: T\n    sort: ascending\n")?.details).toEqual({ key_path: "views[0].sort", line: 4, column: 11 });
    expect(problem("views:\n  - name: T\n    limit: -1\n")?.details).toEqual({ key_path: "views[0].limit", line: 3, column: 12 });
    expect(problem("filters:\n  and: [a]\n  or: [b]\n")?.details).toMatchObject({ key_path: "filters", line: 2 });
    expect(problem("filters:\n  nand: [a]\n")?.details).toMatchObject({ key_path: "filters.nand" });
    expect(problem("- just\n- a list\n")?.code).toBe("parse_failed");
  });

  test("an expression error points at its character in the file", () => {
    const err = problem("filters:\n  and:\n    - 'price > '\n");
    expect(err?.code).toBe("parse_failed");
    expect(err?.details).toEqual({ key_path: "filters.and[0]", line: 3, column: 16 });
    expect(err?.message).toContain("x.base: filters.and[0]:");
    expect(problem("formulas:\n  f: nosuch(1)\n")?.details).toEqual({ key_path: "formulas.f", line: 2, column: 6 });
  });

  test("formulas that refer to each other in a cycle are a typed error naming the cycle", () => {
    const err = problem("formulas:\n  a: formula.b + 1\n  b: formula['c'] * 2\n  c: formula.a\n  d: formula.a\n");
    expect(err?.code).toBe("parse_failed");
    expect(err?.message).toContain("a → b → c → a");
    expect(err?.details).toMatchObject({ key_path: "formulas.a" });
    expect(problem("formulas:\n  self: formula.self\n")?.message).toContain("self → self");
    expect(problem("formulas:\n  a: formula.b\n  b: price\n")).toBeNull();
  });

  test("bounds are validation_failed (400): expression length and nesting, filter depth, views", () => {
    expect(problem(`filters: '${"1+".repeat(6000)}1'`)?.code).toBe("validation_failed");
    expect(problem(`filters: '${"(".repeat(80)}1${")".repeat(80)}'`)?.code).toBe("validation_failed");
    let deep = "x";
    for (let i = 0; i < 40; i++) deep = `{and: [${deep}]}`;
    expect(problem(`filters: ${deep}`)?.code).toBe("validation_failed");
    expect(problem(`views:\n${"  - type: table\n".repeat(101)}`)?.code).toBe("validation_failed");
  });
});

describe("base blocks in notes", () => {
  test("```base and ~~~base fences, with the line of their first YAML line; other fences are skipped", () => {
    const note = ["# Title", "```base", "views: []", "```", "", "```js", "```base inside js", "```", "~~~ base", "filters: x", "~~~", ""].join("\n");
    expect(baseBlocks(note)).toEqual([
      { yaml: "views: []\n", line: 3 },
      { yaml: "filters: x\n", line: 10 },
    ]);
  });
});
