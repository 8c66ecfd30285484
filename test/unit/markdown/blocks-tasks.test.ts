import { describe, expect, test } from "bun:test";
import { parseNote } from "../../../src/markdown/parse.ts";

const blocks = (text: string) => parseNote(text).blocks.map((b) => [b.id, b.line]);

describe("block ids (docs/obsidian.md)", () => {
  test("end of a paragraph's last line", () => {
    expect(blocks("A happier place. ^37066d\n\nnext")).toEqual([["37066d", 1]]);
    expect(blocks("line one\nline two ^end")).toEqual([["end", 2]]);
  });
  test("mid-paragraph ids do not count", () => expect(blocks("one ^nope\ntwo\n")).toEqual([]));
  test("must be preceded by whitespace; only [A-Za-z0-9-]", () => {
    expect(blocks("word^x\n\nb ^ok-1\n\nc ^bad_id\n\nd ^Ab9 ")).toEqual([
      ["ok-1", 3],
      ["Ab9", 7],
    ]);
  });
  test("a line that is only ^id attaches to the preceding block", () => {
    expect(blocks("- a\n- b\n\n^my-list-id\n\nafter")).toEqual([["my-list-id", 4]]);
    expect(blocks("| a |\n| - |\n| 1 |\n^tbl")).toEqual([["tbl", 4]]);
  });
  test("list items: last line of the item", () => {
    expect(blocks("- one ^i1\n- two ^i2\n  continued\n- three\n")).toEqual([["i1", 1]]);
    expect(blocks("- one\n  cont ^c1\n- two")).toEqual([["c1", 2]]);
  });
  test("quotes", () => expect(blocks("> quoted text ^q1\n\nx")).toEqual([["q1", 1]]));
  test("not in code, comments or headings", () => {
    expect(blocks("```\ntext ^code\n```\n`x ^y`\n\n%%c ^hid%%\n\n# H ^hd\n\nok ^yes")).toEqual([["yes", 10]]);
  });
  test("before a heading or fence the paragraph ends", () => {
    expect(blocks("para ^p1\n# H\npara2 ^p2\n```\n```")).toEqual([
      ["p1", 1],
      ["p2", 3],
    ]);
  });
});

describe("tasks", () => {
  test("markers and statuses", () => {
    const p = parseNote("- [ ] open\n* [x] done\n+ [X] Done\n1. [/] half\n2) [-] cancelled\n- [>]\n");
    expect(p.tasks).toEqual([
      { line: 1, status: " ", checked: false, text: "open" },
      { line: 2, status: "x", checked: true, text: "done" },
      { line: 3, status: "X", checked: true, text: "Done" },
      { line: 4, status: "/", checked: true, text: "half" },
      { line: 5, status: "-", checked: true, text: "cancelled" },
      { line: 6, status: ">", checked: true, text: "" },
    ]);
  });
  test("nested and quoted tasks", () => {
    const p = parseNote("- [ ] parent\n    - [x] child\n\t- [ ] tab child\n> - [ ] in quote\n");
    expect(p.tasks.map((t) => [t.line, t.text])).toEqual([
      [1, "parent"],
      [2, "child"],
      [3, "tab child"],
      [4, "in quote"],
    ]);
  });
  test("not tasks", () => {
    const text = "- [x](link.md)\n-[ ] no space\n- [] empty\n- [ab] two\n[ ] no marker\n```\n- [ ] code\n```\n\n    - [ ] indented code\n";
    expect(parseNote(text).tasks).toEqual([]);
  });
  test("task text keeps links and tags, which are also extracted", () => {
    const p = parseNote("- [ ] call [[Bob]] #phone");
    expect(p.tasks[0]!.text).toBe("call [[Bob]] #phone");
    expect(p.tags).toEqual(["phone"]);
    expect(p.links.map((l) => l.linkpath)).toEqual(["Bob"]);
  });
});
