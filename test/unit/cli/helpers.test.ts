import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { normalizeArgv, takeJsonFields } from "../../../src/cli/argv.ts";
import { progressLine } from "../../../src/cli/progress.ts";
import { wrap } from "../../../src/cli/wrap.ts";
import { unknownKeysIn } from "../../../src/config/load.ts";
import { humanLine } from "../../../src/core/log.ts";
import { closest, didYouMean } from "../../../src/core/suggest.ts";
import { enumValues, expectation } from "../../../src/ops/schema-words.ts";

describe("did you mean", () => {
  test("the nearest names only; a swap of neighbours is one edit; a prefix is nearest", () => {
    expect(closest("serch", ["search", "related", "serve"])).toEqual(["search"]);
    expect(closest("server.prot", ["server.port", "server.host"])).toEqual(["server.port"]);
    expect(closest("no", ["note", "events"])).toEqual(["note"]);
    expect(closest("zzzzzz", ["search"])).toEqual([]);
    expect(didYouMean("lnk", ["link", "tag"])).toBe(" Did you mean link?");
    expect(didYouMean("qq", ["search"])).toBe("");
  });
});

describe("argv", () => {
  test("global flags move after the command words; help <command> is --help", () => {
    expect(normalizeArgv(["--vault", "/v", "search", "x", "--json"])).toEqual(["search", "x", "--vault", "/v", "--json"]);
    expect(normalizeArgv(["--format=csv", "note", "list", "--", "--vault"])).toEqual(["note", "list", "--format=csv", "--", "--vault"]);
    expect(normalizeArgv(["help", "note", "get"])).toEqual(["note", "get", "--help"]);
  });

  test("a flag followed by true or false takes it as its value; other words and -- are left alone", () => {
    expect(normalizeArgv(["ai", "summarize", "--cache", "false", "--stream", "true"])).toEqual(["ai", "summarize", "--cache=false", "--stream=true"]);
    expect(normalizeArgv(["ai", "ask", "q", "--cache", "falsey"])).toEqual(["ai", "ask", "q", "--cache", "falsey"]);
    expect(normalizeArgv(["ai", "ask", "--cache=false", "true"])).toEqual(["ai", "ask", "--cache=false", "true"]);
    expect(normalizeArgv(["search", "--", "--stream", "false"])).toEqual(["search", "--", "--stream", "false"]);
  });

  test("--json takes a field list, and a single word only when it is a known field", () => {
    expect(takeJsonFields(["search", "x", "--json", "path,score"], new Set())).toEqual({ argv: ["search", "x", "--json"], fields: ["path", "score"] });
    expect(takeJsonFields(["search", "x", "--json=path"], new Set())).toEqual({ argv: ["search", "x", "--json"], fields: ["path"] });
    expect(takeJsonFields(["note", "get", "--json", "path"], new Set(["path"])).fields).toEqual(["path"]);
    expect(takeJsonFields(["search", "--json", "rollback"], new Set(["path"]))).toEqual({ argv: ["search", "--json", "rollback"], fields: null });
  });
});

describe("words for people", () => {
  test("wrap keeps every line within the width and indents the rest", () => {
    const text = wrap("one two three four five six seven eight nine ten eleven twelve", 20, "    ", "  ");
    for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(20);
    expect(text.startsWith("  one")).toBe(true);
    expect(text.split("\n")[1]!.startsWith("    ")).toBe(true);
  });

  test("schema expectations in words", () => {
    const mode = Type.Union([Type.Union([Type.Literal("lexical"), Type.Literal("semantic")]), Type.Literal("auto")]);
    expect(enumValues(mode)).toEqual(["lexical", "semantic", "auto"]);
    expect(expectation(mode)).toBe("must be lexical, semantic or auto");
    expect(expectation(Type.Integer({ minimum: 1, maximum: 100 }))).toBe("must be a whole number from 1 to 100");
    expect(expectation(Type.Boolean())).toBe("must be true or false");
  });

  test("the progress line shows the step, percent, counts, rate and time left within the width", () => {
    const line = progressLine("indexing", 250, 1000, 2000, 80);
    expect(line).toContain("indexing [");
    expect(line).toContain(" 25% 250/1000 (125/s, 6 s left)");
    expect(line.length).toBeLessThan(80);
    expect(progressLine("embedding", 10, 10, 1000, 80)).not.toContain("left");
  });

  test("a log line for a terminal: time, event, key=value", () => {
    const line = humanLine(new Date(2026, 0, 5, 9, 30, 0), "http_request", { route: "/v1/search", status: 200, ms: 3.2, q: "two words" });
    expect(line).toBe('09:30:00  http request  route=/v1/search  status=200  ms=3.2  q="two words"');
  });

  test("unknown config keys: misspelt keys and tables, not the known ones", () => {
    expect(unknownKeysIn({ vault: "/v", server: { port: 1, prot: 2 }, serch: { x: 1 } })).toEqual(["server.prot", "serch"]);
  });
});
