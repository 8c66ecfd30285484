import { describe, expect, test } from "bun:test";
import { newLinkText } from "../../../src/links/new-link.ts";
import { LinkResolver } from "../../../src/links/resolve.ts";

const resolver = new LinkResolver(["Notes/Plan.md", "Archive/Plan.md", "Kitchen/Sauce.md", "Ideas/C# tips.md", "Sauce.png"]);
const wiki = { newLinkFormat: "shortest" as const, useMarkdownLinks: false };
const markdown = { newLinkFormat: "shortest" as const, useMarkdownLinks: true };

describe("a new link in the vault's format", () => {
  test("wikilinks: the bare name when it is unique, the path when another note shares the name", () => {
    expect(newLinkText("Kitchen/Sauce.md", "Notes/Plan.md", wiki, resolver)).toBe("[[Sauce]]");
    expect(newLinkText("Archive/Plan.md", "Kitchen/Sauce.md", wiki, resolver)).toBe("[[Archive/Plan]]");
    expect(newLinkText("Kitchen/Sauce.md", "Notes/Plan.md", { ...wiki, newLinkFormat: "absolute" }, resolver)).toBe("[[Kitchen/Sauce]]");
    expect(newLinkText("Kitchen/Sauce.md", "Notes/Plan.md", { ...wiki, newLinkFormat: "relative" }, resolver)).toBe("[[../Kitchen/Sauce]]");
  });

  test("Markdown links keep the extension and encode the path; a path no link can name is refused", () => {
    expect(newLinkText("Kitchen/Sauce.md", "Notes/Plan.md", markdown, resolver)).toBe("[Sauce](Sauce.md)");
    expect(newLinkText("Archive/Plan.md", "Kitchen/Sauce.md", { ...markdown, newLinkFormat: "relative" }, resolver)).toBe("[Plan](../Archive/Plan.md)");
    expect(() => newLinkText("Ideas/C# tips.md", "Notes/Plan.md", wiki, resolver)).toThrow(expect.objectContaining({ code: "validation_failed" }));
  });
});
