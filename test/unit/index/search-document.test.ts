import { expect, test } from "bun:test";
import { searchHeadings } from "../../../src/index/lexical/search-document.ts";

test("a heading that repeats the title leaves the headings column, whatever its case and spacing", () => {
  expect(searchHeadings("Launch Plan", ["  launch PLAN ", "Launch plans", "Risks", "LAUNCH PLAN"])).toBe("Launch plans Risks");
  // İ lowercases to two code units: a heading of another length can still be the title.
  expect(searchHeadings("İstanbul", ["İSTANBUL", "istanbul", "Ankara"])).toBe("istanbul Ankara");
  expect(searchHeadings("i\u0307stanbul", ["İstanbul"])).toBe("");
});

test("lowercasing keeps every character's length in UTF-16 but İ's (what sameAsTitle relies on)", () => {
  const longer: number[] = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    if (s.toLowerCase().length !== s.length) longer.push(c);
  }
  expect(longer).toEqual([0x130]);
});
