import { describe, expect, test } from "bun:test";
import { JsonFieldFollower } from "../../../src/ai/stream.ts";

/** Feeds `reply` in the given pieces and returns the text the follower streamed. */
function follow(pieces: string[], field = "answer"): string {
  const f = new JsonFieldFollower(field);
  return pieces.map((p) => f.push(p)).join("");
}

const REPLIES = [
  { answer: "Plain text." },
  { answer: 'Escapes: "quoted", back\\slash, new\nline, tab\t, é, \u0001 and 😀 and 日本語.' },
  { nested: { answer: "not this one" }, list: ["answer", { answer: "nor this" }], answer: "but this one" },
  { supported: true, confidence: "high", answer: "after other keys", citations: [{ passage: "P1", quote: "answer" }] },
  { answer: "" },
  { other: "no answer here" },
];

describe("JsonFieldFollower", () => {
  test.each(REPLIES.map((r) => [JSON.stringify(r), r] as const))("%s: every way of cutting the reply in two streams the field exactly", (_, value) => {
    const text = JSON.stringify(value);
    const expected = typeof value.answer === "string" ? value.answer : "";
    for (let i = 0; i <= text.length; i++) expect(follow([text.slice(0, i), text.slice(i)])).toBe(expected);
  });

  test("a character at a time, and with \\u escapes for every non-ASCII character", () => {
    for (const value of REPLIES) {
      const expected = typeof value.answer === "string" ? value.answer : "";
      const ascii = JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
      expect(follow([...ascii])).toBe(expected);
      expect(follow([...JSON.stringify(value)])).toBe(expected);
    }
  });

  test("no delta ends in half a surrogate pair", () => {
    const f = new JsonFieldFollower("answer");
    const text = JSON.stringify({ answer: "😀😀" }).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
    for (const piece of text.match(/.{1,6}/g)!) {
      const out = f.push(piece);
      if (out) expect(/[\ud800-\udbff]$/.test(out)).toBe(false);
    }
  });

  test("whitespace and pretty-printing around the key and colon", () => {
    expect(follow(['{\n  "answer" ', ':  "spaced', ' out"\n}'])).toBe("spaced out");
  });

  test("a 1 MB answer in 10,000 pieces streams whole (each character is read once)", () => {
    const answer = "word ".repeat(200_000);
    const text = JSON.stringify({ supported: true, answer, citations: [] });
    const size = Math.ceil(text.length / 10_000);
    const pieces = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
    expect(follow(pieces)).toBe(answer);
  });
});
