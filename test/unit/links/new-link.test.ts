import { describe, expect, test } from "bun:test";
import { attachmentFolder, availableNames, nameProblem } from "../../../src/attachments/folder.ts";
import { type LinkStyle, newLinkText } from "../../../src/links/link-text.ts";
import { LinkResolver } from "../../../src/vault/link-resolver.ts";

const PATHS = ["Projects/Alpha.md", "Projects/assets/chart one.png", "Archive/2026/Beta note.md", "Other/Beta note.md", "img.png", "Notes/img.png"];
const resolver = new LinkResolver(PATHS);
const style = (newLinkFormat: LinkStyle["newLinkFormat"], useMarkdownLinks: boolean): LinkStyle => ({ newLinkFormat, useMarkdownLinks });

describe("newLinkText: a new link as the vault's settings write it", () => {
  test("wikilinks: shortest is the bare name when it is unique, else the vault path; notes lose .md", () => {
    expect(newLinkText("Projects/assets/chart one.png", "Projects/Alpha.md", style("shortest", false), resolver, { embed: true })).toBe("![[chart one.png]]");
    expect(newLinkText("Archive/2026/Beta note.md", "Projects/Alpha.md", style("shortest", false), resolver)).toBe("[[Archive/2026/Beta note]]");
    expect(newLinkText("Notes/img.png", "Projects/Alpha.md", style("shortest", false), resolver, { embed: true })).toBe("![[Notes/img.png]]");
  });

  test("Markdown links: URL-encoded destinations with the extension, the note's name as text, empty alt text for embeds", () => {
    expect(newLinkText("Archive/2026/Beta note.md", "Projects/Alpha.md", style("absolute", true), resolver)).toBe("[Beta note](Archive/2026/Beta%20note.md)");
    expect(newLinkText("Archive/2026/Beta note.md", "Projects/Alpha.md", style("relative", true), resolver)).toBe(
      "[Beta note](../Archive/2026/Beta%20note.md)",
    );
    expect(newLinkText("Projects/assets/chart one.png", "Projects/Alpha.md", style("relative", true), resolver, { embed: true })).toBe(
      "![](assets/chart%20one.png)",
    );
    expect(newLinkText("Projects/assets/chart one.png", "Projects/Alpha.md", style("shortest", true), resolver, { embed: true })).toBe("![](chart%20one.png)");
  });

  test("a relative wikilink without ./ that would resolve elsewhere gets ./", () => {
    // From the root, `img.png` names the root file first: the one in Notes/ needs its path.
    expect(newLinkText("Notes/img.png", "", style("relative", false), resolver, { embed: true })).toBe("![[Notes/img.png]]");
    expect(newLinkText("img.png", "Notes/x.md", style("relative", false), resolver, { embed: true })).toBe("![[../img.png]]");
  });
});

describe("attachment folders (attachmentFolderPath)", () => {
  test("root, beside the note, a folder beside the note, a vault folder", () => {
    expect(attachmentFolder("/", "Projects/Alpha.md")).toBe("");
    expect(attachmentFolder("./", "Projects/Alpha.md")).toBe("Projects");
    expect(attachmentFolder("./assets", "Projects/Alpha.md")).toBe("Projects/assets");
    expect(attachmentFolder("./assets/", "Alpha.md")).toBe("assets");
    expect(attachmentFolder("Attachments/Images", "Projects/Alpha.md")).toBe("Attachments/Images");
    expect(attachmentFolder("./", null)).toBe("");
    expect(attachmentFolder("./assets", null)).toBe("assets");
  });

  test("taken names are numbered as Obsidian numbers them; unsafe names are refused", () => {
    const names = availableNames("chart one.png");
    expect([0, 1, 2].map(() => names.next().value)).toEqual(["chart one.png", "chart one 1.png", "chart one 2.png"]);
    expect(availableNames("README").next().value).toBe("README");
    for (const bad of ["a#b.png", "a|b.png", "a[1].png", "a^b.png", "a/b.png", "a\\b.png", ".hidden.png"]) expect(nameProblem(bad)).not.toBeNull();
    expect(nameProblem("Pasted image 20260107.png")).toBeNull();
  });
});

const relateResolver = new LinkResolver(["Notes/Plan.md", "Archive/Plan.md", "Kitchen/Sauce.md", "Ideas/C# tips.md", "Sauce.png"]);
const wiki = { newLinkFormat: "shortest" as const, useMarkdownLinks: false };
const markdown = { newLinkFormat: "shortest" as const, useMarkdownLinks: true };

describe("newLinkText for proposed links", () => {
  test("wikilinks: the bare name when it is unique, the path when another note shares the name", () => {
    expect(newLinkText("Kitchen/Sauce.md", "Notes/Plan.md", wiki, relateResolver)).toBe("[[Sauce]]");
    expect(newLinkText("Archive/Plan.md", "Kitchen/Sauce.md", wiki, relateResolver)).toBe("[[Archive/Plan]]");
    expect(newLinkText("Kitchen/Sauce.md", "Notes/Plan.md", { ...wiki, newLinkFormat: "absolute" }, relateResolver)).toBe("[[Kitchen/Sauce]]");
    expect(newLinkText("Kitchen/Sauce.md", "Notes/Plan.md", { ...wiki, newLinkFormat: "relative" }, relateResolver)).toBe("[[../Kitchen/Sauce]]");
  });

  test("Markdown links keep the extension and encode the path; a path no link can name is refused", () => {
    expect(newLinkText("Kitchen/Sauce.md", "Notes/Plan.md", markdown, relateResolver)).toBe("[Sauce](Sauce.md)");
    expect(newLinkText("Archive/Plan.md", "Kitchen/Sauce.md", { ...markdown, newLinkFormat: "relative" }, relateResolver)).toBe("[Plan](../Archive/Plan.md)");
    expect(() => newLinkText("Ideas/C# tips.md", "Notes/Plan.md", wiki, relateResolver)).toThrow(expect.objectContaining({ code: "validation_failed" }));
  });
});
