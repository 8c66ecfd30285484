import { describe, expect, test } from "bun:test";
import type { AiScope } from "../../../src/ai/scope.ts";
import { IndxError } from "../../../src/core/errors.ts";
import { AI_RESOURCES, aiUri, MAX_AI_URI_CHARS, parseAiUri } from "../../../src/mcp/ai-uris.ts";

/** The ai:// URI encoding of an AiScope: compact, canonical, round-tripping every kind, bounded. */

const SCOPES: AiScope[] = [
  { kind: "paths", paths: ["Projects/Apollo Launch.md", "a,b & c?.md", "Café/#1 (v2)%.md"] },
  { kind: "glob", path_glob: "Projects/**/*.md" },
  { kind: "glob", path_glob: "{Daily,Weekly}/2026-0[1-3]-*.md" },
  { kind: "tag", tag: "project/active" },
  { kind: "query", q: 'how do we roll back? 50% + "quoted"' },
  { kind: "query", q: "rollback", mode: "lexical", limit: 7 },
  { kind: "note", path: "Projects/Apollo Launch.md" },
  { kind: "note", path: "Projects/Apollo Launch.md", include_linked: 2 },
];

function errorOf(fn: () => unknown): IndxError {
  try {
    fn();
  } catch (err) {
    if (err instanceof IndxError) return err;
    throw err;
  }
  throw new Error("expected an error");
}

describe("ai:// URIs", () => {
  test("every scope kind round-trips through its canonical URI, for both resources", () => {
    for (const resource of AI_RESOURCES)
      for (const scope of SCOPES) {
        const uri = aiUri(resource, scope);
        expect(uri).toStartWith(`ai://${resource}/${scope.kind}/`);
        expect(uri).not.toMatch(/[ #"]/);
        expect(parseAiUri(uri)).toEqual({ resource, scope });
        expect(aiUri(resource, parseAiUri(uri).scope)).toBe(uri);
      }
  });

  test("the compact form reads as the example shows: one component per value, options after '?'", () => {
    expect(aiUri("summary", { kind: "glob", path_glob: "Projects/**" })).toBe("ai://summary/glob/Projects%2F**");
    expect(aiUri("moc", { kind: "paths", paths: ["A.md", "B/C.md"] })).toBe("ai://moc/paths/A.md,B%2FC.md");
    expect(parseAiUri("ai://summary/note/Projects%2FApollo%20Launch.md?include_linked=1")).toEqual({
      resource: "summary",
      scope: { kind: "note", path: "Projects/Apollo Launch.md", include_linked: 1 },
    });
    // What an RFC 6570 client makes of the template: '*' encoded too.
    expect(parseAiUri("ai://summary/glob/Projects%2F%2A%2A").scope).toEqual({ kind: "glob", path_glob: "Projects/**" });
  });

  test("a scope as percent-encoded JSON is read too", () => {
    const scope: AiScope = { kind: "query", q: "rollback", mode: "hybrid", limit: 3 };
    expect(parseAiUri(`ai://summary/${encodeURIComponent(JSON.stringify(scope))}`)).toEqual({ resource: "summary", scope });
    expect(errorOf(() => parseAiUri(`ai://summary/${encodeURIComponent("{kind:")}`)).message).toContain("not valid JSON");
    expect(errorOf(() => parseAiUri(`ai://summary/${encodeURIComponent(JSON.stringify({ kind: "tag", tag: "x", colour: 1 }))}`)).code).toBe(
      "validation_failed",
    );
  });

  test("malformed URIs are validation_failed naming what is wrong", () => {
    const bad: [string, string][] = [
      ["ai://digest/glob/x", "ai://summary/<kind>/<value>"],
      ["ai://summary", "ai://summary/<kind>/<value>"],
      ["ai://summary/folder/x", "Unknown scope kind"],
      ["ai://summary/glob/Projects/**", "percent-encode '/'"],
      ["ai://summary/glob/%E0%A4", "malformed percent-encoding"],
      ["ai://summary/tag/x?mode=lexical", "takes no option 'mode'"],
      ["ai://summary/query/x?limit=3&limit=4", "given twice"],
      ["ai://summary/query/x?limit=lots", "limit"],
      ["ai://summary/query/x?limit=1000", "limit"],
      ["ai://summary/note/x.md?include_linked=9", "include_linked"],
      ["ai://summary/glob/", "path_glob"],
      ["ai://summary/glob/x#frag", "ai://summary/<kind>/<value>"],
    ];
    for (const [uri, words] of bad) {
      const e = errorOf(() => parseAiUri(uri));
      expect(e.code).toBe("validation_failed");
      expect(e.message).toContain(words);
    }
  });

  test("URIs and scopes are bounded", () => {
    const long = `ai://summary/query/${"q".repeat(MAX_AI_URI_CHARS)}`;
    expect(errorOf(() => parseAiUri(long)).message).toContain(`at most ${MAX_AI_URI_CHARS}`);
    const tooMany = Array.from({ length: 501 }, (_, i) => `${i}.md`).join(",");
    expect(errorOf(() => parseAiUri(`ai://summary/paths/${tooMany}`)).code).toBe("validation_failed");
  });
});
