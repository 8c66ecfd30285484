import { describe, expect, test } from "bun:test";
import { parse } from "yaml";
import { parseSimpleYaml } from "../../../src/markdown/yaml-simple.ts";

/** The fast path must either bail (undefined) or agree exactly with eemeli/yaml. */
function agrees(src: string): boolean | "bail" {
  const fast = parseSimpleYaml(src);
  if (fast === undefined) return "bail";
  let slow: unknown;
  try {
    slow = parse(src, { logLevel: "error" }) ?? {};
  } catch {
    return false; // fast path accepted something yaml rejects
  }
  expect(fast).toEqual(slow as Record<string, unknown>);
  return true;
}

const SCALARS = [
  "plain",
  "two words",
  "2020-08-21",
  "12:30",
  "yes",
  "no",
  "on",
  "true",
  "False",
  "TRUE",
  "null",
  "Null",
  "~",
  "",
  "0",
  "012",
  "-7",
  "+3",
  "0o17",
  "0x1F",
  "0xg",
  "1.5",
  "1.50",
  ".5",
  "5.",
  "1e3",
  "-1.2E-3",
  ".inf",
  "-.Inf",
  ".nan",
  "1_000",
  "1,000",
  "a, b",
  "a: b",
  "a:b",
  "trailing:",
  "C#",
  "x #c",
  "[[Link]]",
  '"[[Link]]"',
  "'[[L|a]]'",
  '"quoted"',
  "'single'",
  '"with \\" escape"',
  "'it''s'",
  '"a, b"',
  "-dash",
  "- item",
  "?q",
  "&anchor",
  "*alias",
  "!tag",
  "|",
  ">",
  "%pct",
  "@at",
  "`tick`",
  "{a: 1}",
  "[a, b]",
  "[]",
  "[ ]",
  "[a, [b]]",
  "[a,]",
  "[1, two, 3.0, null]",
  "caf\u00e9 \u65e5\u672c",
  "a\tb",
  "end ",
  " lead",
  "x: y: z",
];

describe("parseSimpleYaml (fast path) agrees with yaml", () => {
  test("every scalar form as a mapping value", () => {
    let fast = 0;
    for (const s of SCALARS) {
      const r = agrees(`key: ${s}\n`);
      expect([s, r]).not.toEqual([s, false]);
      if (r === true) fast++;
    }
    expect(fast).toBeGreaterThan(30);
  });

  test("block sequences", () => {
    for (const s of SCALARS) {
      for (const indent of ["", "  "]) expect(agrees(`tags:\n${indent}- ${s}\n${indent}- other\n`)).not.toBe(false);
    }
    expect(agrees("a:\n  - x\n\n  - y\nb: 1\n")).toBe(true);
    expect(agrees("a:\n  - x\n - y\n")).toBe("bail");
    expect(agrees("a:\n  nested: 1\n")).toBe("bail");
    expect(agrees("a:\n-x\n")).not.toBe(false);
  });

  test("keys and document shapes", () => {
    const docs = [
      "",
      "\n\n",
      "a: 1\r\nb: [x, y]\r\n",
      "due date: 2024-01-01\n",
      "a: 1\na: 2\n",
      "true: 1\n",
      "null: x\n",
      "123: x\n",
      "__proto__: x\n",
      "a:1\n",
      "- a\n- b\n",
      "just text\n",
      "# comment\na: 1\n",
      "a: |\n  text\n",
      "a: >\n  text\n",
      "a: b\n  continued\n",
      "---\na: 1\n",
      '{"a": 1}\n',
      "a: 1 # c\n",
      "k-e_y: v\n",
      "Key With Spaces: v\n",
    ];
    for (const d of docs) expect([d, agrees(d)]).not.toEqual([d, false]);
  });

  test("randomised documents", () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let n = 0; n < 500; n++) {
      const lines: string[] = [];
      const keys = 1 + rnd(5);
      for (let k = 0; k < keys; k++) {
        const key = `k${k}`;
        const form = rnd(3);
        if (form === 0) lines.push(`${key}: ${SCALARS[rnd(SCALARS.length)]}`);
        else if (form === 1) lines.push(`${key}: [${SCALARS[rnd(SCALARS.length)]}, ${SCALARS[rnd(SCALARS.length)]}]`);
        else lines.push(`${key}:`, `  - ${SCALARS[rnd(SCALARS.length)]}`, `  - ${SCALARS[rnd(SCALARS.length)]}`);
      }
      const doc = `${lines.join("\n")}\n`;
      expect([doc, agrees(doc)]).not.toEqual([doc, false]);
    }
  });
});
