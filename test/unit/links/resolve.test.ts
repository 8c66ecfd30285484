import { describe, expect, test } from "bun:test";
import { keysForFile, LinkResolver, linkKey } from "../../../src/vault/link-resolver.ts";

// The test-vector vault of docs/obsidian.md (Link resolution).
const VAULT = ["Note.md", "A/Note.md", "A/x.md", "A/Sub/Deep.md", "B/Note.md", "C/Deep.md", "img.png", "A/img.png"];
const SOURCE = "A/x.md";

/** What the link parser hands the resolver: the linkpath without its `#subpath` (parseLinktext). */
const linkpathOf = (linktext: string) => linktext.split("#")[0] ?? "";

describe("link resolution test vectors of docs/obsidian.md (source A/x.md)", () => {
  const r = new LinkResolver(VAULT);
  const rows: [link: string, expected: string | null][] = [
    ["Note", "Note.md"], // .md retry; the exact root path wins
    ["note", "Note.md"], // case-insensitive
    ["B/Note", "B/Note.md"], // exact path
    ["Sub/Deep", "A/Sub/Deep.md"], // suffix match
    ["Deep", "A/Sub/Deep.md"], // near beats far, even though C/Deep.md is shorter
    ["./Note", "A/Note.md"], // relative
    ["/Note", "Note.md"], // "/"-absolute: exact only
    ["img.png", "img.png"], // exact root path
    ["img", null], // non-Markdown targets need their extension
    ["Note#Missing heading", "Note.md"], // subpath ignored for resolution
    ["#Intro", "A/x.md"], // a link into the note itself
  ];
  for (const [link, expected] of rows) {
    test(`[[${link}]] → ${expected ?? "unresolved"}`, () => {
      expect(r.resolve(linkpathOf(link), SOURCE)).toBe(expected);
    });
  }

  test("[[Note]] with root Note.md deleted → A/Note.md (near group)", () => {
    const r2 = new LinkResolver(VAULT);
    r2.remove("Note.md");
    expect(r2.resolve("Note", SOURCE)).toBe("A/Note.md");
    expect(r2.candidates("Note", SOURCE)).toEqual(["A/Note.md", "B/Note.md"]);
  });

  test("[[/Note]] is unresolved when there is no root file", () => {
    const r2 = new LinkResolver(VAULT);
    r2.remove("Note.md");
    expect(r2.resolve("/Note", SOURCE)).toBeNull();
  });
});

describe("LinkResolver", () => {
  test("[[../B/Note]] resolves relative to the source folder", () => {
    const r = new LinkResolver(VAULT);
    expect(r.resolve("../B/Note", SOURCE)).toBe("B/Note.md");
    expect(r.resolve("./../B/Note", SOURCE)).toBe("B/Note.md"); // `./../` is treated as `../`
    expect(r.resolve("../B/Note", "A/Sub/Deep.md")).toBeNull(); // A/B/Note.md does not exist
    expect(r.resolve("../../B/Note", "A/Sub/Deep.md")).toBe("B/Note.md");
  });

  test("relative links match one exact path only, never by suffix", () => {
    const r = new LinkResolver(VAULT);
    expect(r.candidates("./Deep", SOURCE)).toEqual([]);
    expect(r.candidates("./Sub/Deep", SOURCE)).toEqual(["A/Sub/Deep.md"]);
  });

  test("an explicit .md resolves like the bare name", () => {
    const r = new LinkResolver(VAULT);
    expect(r.resolve("Note.md", SOURCE)).toBe("Note.md");
    expect(r.resolve("B/Note.md", SOURCE)).toBe("B/Note.md");
    expect(r.resolve("Deep.md", SOURCE)).toBe("A/Sub/Deep.md");
  });

  test("non-Markdown targets need their extension; the near one wins", () => {
    const r = new LinkResolver(["img.png", "A/img.png", "Z/img.png"]);
    expect(r.resolve("img.png", "A/x.md")).toBe("img.png"); // exact root path first
    r.remove("img.png");
    expect(r.resolve("img.png", "A/x.md")).toBe("A/img.png");
    expect(r.resolve("img.png", "B/x.md")).toBe("A/img.png"); // both far: same length, path order
    expect(r.resolve("img", "A/x.md")).toBeNull();
  });

  test("the exact vault path beats a note in the source's own folder", () => {
    const r = new LinkResolver(["Projects/Note.md", "Other/Projects/Note.md"]);
    expect(r.resolve("Projects/Note", "Other/Projects/x.md")).toBe("Projects/Note.md");
  });

  test("Projects2/ counts as near Projects/ (plain string prefix quirk)", () => {
    const r = new LinkResolver(["Projects2/Deep/Note.md", "B/Note.md", "Projects/x.md"]);
    // Far would pick B/Note.md (shorter); the quirk makes Projects2/... near, so it wins.
    expect(r.candidates("Note", "Projects/x.md")).toEqual(["Projects2/Deep/Note.md", "B/Note.md"]);
  });

  test("suffix matching is not segment-aligned (quirk)", () => {
    const r = new LinkResolver(["folder/older/Note.md", "bolder/Note.md", "x/Note.md"]);
    expect(r.candidates("older/Note", "z.md")).toEqual(["bolder/Note.md", "folder/older/Note.md"]);
  });

  test("ties in length are broken by path order, regardless of insertion order", () => {
    const paths = ["Z/Note.md", "M/Note.md", "B/Note.md"];
    const forward = new LinkResolver(paths);
    const backward = new LinkResolver([...paths].reverse());
    expect(forward.candidates("Note", "x/y.md")).toEqual(["B/Note.md", "M/Note.md", "Z/Note.md"]);
    expect(backward.candidates("Note", "x/y.md")).toEqual(["B/Note.md", "M/Note.md", "Z/Note.md"]);
  });

  test("within a group shorter paths come first", () => {
    const r = new LinkResolver(["A/very/deep/Note.md", "A/b/Note.md", "Q/Note.md", "QQ/long/Note.md"]);
    expect(r.candidates("Note", "A/x.md")).toEqual(["A/b/Note.md", "A/very/deep/Note.md", "Q/Note.md", "QQ/long/Note.md"]);
  });

  test("from a root-level source everything is near, so the shortest path wins", () => {
    const r = new LinkResolver(["Z/Deep.md", "A/Sub/Deep.md", "root.md"]);
    expect(r.candidates("Deep", "root.md")).toEqual(["Z/Deep.md", "A/Sub/Deep.md"]);
    expect(r.resolve("./Deep", "root.md")).toBeNull();
    expect(r.resolve("./Z/Deep", "root.md")).toBe("Z/Deep.md");
    expect(r.resolve("../Z/Deep", "root.md")).toBe("Z/Deep.md"); // above the root stays at the root
    expect(r.resolve("", "root.md")).toBe("root.md");
  });

  test("case-insensitive for names and folders; returns the path as stored", () => {
    const r = new LinkResolver(["Folder/My Note.md"]);
    expect(r.resolve("folder/MY NOTE", "x.md")).toBe("Folder/My Note.md");
    expect(r.resolve("FOLDER/my note.MD", "x.md")).toBe("Folder/My Note.md");
  });

  test("NFC and NFD spellings resolve to each other", () => {
    const nfd = "Caf\u0065\u0301.md";
    const r = new LinkResolver([nfd]);
    expect(r.resolve("Caf\u00e9", "x.md")).toBe(nfd);
    const r2 = new LinkResolver(["Caf\u00e9.md"]);
    expect(r2.resolve("Caf\u0065\u0301", "x.md")).toBe("Caf\u00e9.md");
  });

  test("aliases and unknown names stay unresolved", () => {
    const r = new LinkResolver(VAULT);
    expect(r.resolve("Nope", SOURCE)).toBeNull();
    expect(r.candidates("Nope", SOURCE)).toEqual([]);
  });

  test("add and remove are incremental and idempotent", () => {
    const r = new LinkResolver([]);
    expect(r.resolve("Note", "x.md")).toBeNull();
    r.add("B/Note.md");
    r.add("B/Note.md");
    expect(r.candidates("Note", "x.md")).toEqual(["B/Note.md"]);
    r.add("Note.md");
    expect(r.resolve("Note", "x.md")).toBe("Note.md");
    r.remove("Note.md");
    r.remove("Note.md");
    r.remove("never/added.md");
    expect(r.candidates("Note", "x.md")).toEqual(["B/Note.md"]);
    r.remove("B/Note.md");
    expect(r.resolve("Note", "x.md")).toBeNull();
  });

  test("a bare name that exists without .md does not fall through to the .md file", () => {
    const r = new LinkResolver(["Readme", "Readme.md"]);
    expect(r.resolve("Readme", "x.md")).toBe("Readme");
  });

  test("files without a dot in their name keep winning as they come and go, repeated adds and removes included", () => {
    const r = new LinkResolver(["Readme.md"]);
    expect(r.resolve("Readme", "x.md")).toBe("Readme.md");
    r.add("A/Readme");
    r.add("A/Readme");
    r.add("B/Readme");
    expect(r.resolve("Readme", "x.md")).toBe("A/Readme");
    r.remove("A/Readme");
    r.remove("A/Readme");
    expect(r.resolve("Readme", "x.md")).toBe("B/Readme");
    r.remove("C/Readme");
    expect(r.resolve("Readme", "x.md")).toBe("B/Readme");
    r.remove("B/Readme");
    expect(r.resolve("Readme", "x.md")).toBe("Readme.md");
    r.add("C/Readme");
    expect(r.resolve("Readme", "x.md")).toBe("C/Readme");
  });
});

describe("linkKey and keysForFile", () => {
  test("the lowercased file name a link names", () => {
    expect(linkKey("Folder/My Note")).toBe("my note");
    expect(linkKey("IMG.png")).toBe("img.png");
    expect(linkKey("../B/Note")).toBe("note");
    expect(keysForFile("A/Note.md")).toEqual(["note.md", "note"]);
    expect(keysForFile("Note.md.md")).toEqual(["note.md.md", "note.md"]);
    expect(keysForFile("img.png")).toEqual(["img.png"]);
  });

  test("every file a link resolves to can be found from the link's key", () => {
    const r = new LinkResolver(VAULT);
    for (const link of ["Note", "B/Note", "Sub/Deep", "./Note", "/Note", "img.png", "Deep.md", "../B/Note"]) {
      const target = r.resolve(link, SOURCE)!;
      expect(keysForFile(target)).toContain(linkKey(link));
    }
  });
});
