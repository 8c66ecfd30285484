import { describe, expect, test } from "bun:test";
import { fileToLinktext, relativePath } from "../../../src/links/link-text.ts";
import { tokenParts, withPath, withSubpath } from "../../../src/links/link-token.ts";
import { LinkResolver } from "../../../src/vault/link-resolver.ts";

const path = (raw: string) => {
  const p = tokenParts(raw)!;
  return [raw.slice(p.pathStart, p.pathEnd), raw.slice(p.pathEnd, p.subEnd)];
};

describe("tokenParts: where path and subpath sit in a link as written", () => {
  test("wikilinks and embeds", () => {
    expect(path("[[Note]]")).toEqual(["Note", ""]);
    expect(path("![[ Note#H#Sub | alias ]]")).toEqual(["Note", "#H#Sub"]);
    expect(path("[[Note\\|cell]]")).toEqual(["Note", ""]);
    expect(path("[[Note#^blk\\|b]]")).toEqual(["Note", "#^blk"]);
    expect(path("[[#Heading]]")).toEqual(["", "#Heading"]);
  });

  test("Markdown links: encoded, angle-bracketed, with a title", () => {
    expect(path("[t](My%20Note.md#Some%20H)")).toEqual(["My%20Note.md", "#Some%20H"]);
    expect(path('![alt](img.png "a title")')).toEqual(["img.png", ""]);
    expect(path("[t](<My Note.md#H>)")).toEqual(["My Note.md", "#H"]);
    expect(path("[t]( Note.md )")).toEqual(["Note.md", ""]);
    expect(tokenParts("plain text")).toBeNull();
  });

  test("replacing one part keeps every other character", () => {
    const raw = "![[ Note#H | alias ]]";
    expect(withPath(raw, tokenParts(raw)!, "New")).toBe("![[ New#H | alias ]]");
    expect(withSubpath(raw, tokenParts(raw)!, "#K")).toBe("![[ Note#K | alias ]]");
  });
});

describe("fileToLinktext", () => {
  const r = new LinkResolver(["A/Note.md", "B/Note.md", "A/Sub/Unique.md", "img.png"]);
  test("the three formats", () => {
    expect(fileToLinktext("A/Sub/Unique.md", "B/x.md", "shortest", r, true)).toBe("Unique");
    expect(fileToLinktext("A/Note.md", "B/x.md", "shortest", r, true)).toBe("A/Note");
    expect(fileToLinktext("A/Sub/Unique.md", "B/x.md", "shortest", r, false)).toBe("Unique.md");
    expect(fileToLinktext("img.png", "B/x.md", "shortest", r, true)).toBe("img.png");
    expect(fileToLinktext("A/Sub/Unique.md", "B/x.md", "absolute", r, true)).toBe("A/Sub/Unique");
    expect(fileToLinktext("A/Sub/Unique.md", "B/x.md", "relative", r, true)).toBe("../A/Sub/Unique");
    expect(fileToLinktext("A/Sub/Unique.md", "A/x.md", "relative", r, true)).toBe("Sub/Unique");
  });
  test("relativePath", () => {
    expect(relativePath("x.md", "a/b/c.md")).toBe("../../x.md");
    expect(relativePath("a/b/x.md", "a/b/c.md")).toBe("x.md");
    expect(relativePath("a/x.md", "root.md")).toBe("a/x.md");
    expect(relativePath("a/bc/x.md", "a/b/c.md")).toBe("../bc/x.md");
  });
});
