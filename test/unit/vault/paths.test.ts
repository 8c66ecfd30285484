import { describe, expect, test } from "bun:test";
import { IndxError } from "../../../src/core/errors.ts";
import { normalizeVaultPath } from "../../../src/vault/paths.ts";

const reason = (input: unknown) => {
  try {
    normalizeVaultPath(input);
    return "ok";
  } catch (err) {
    expect(err).toBeInstanceOf(IndxError);
    expect((err as IndxError).code).toBe("path_invalid");
    return String((err as IndxError).details?.reason);
  }
};

describe("normalizeVaultPath", () => {
  test("accepts and normalises ordinary paths", () => {
    expect(normalizeVaultPath("Projects/Foo.md")).toBe("Projects/Foo.md");
    expect(normalizeVaultPath("./Projects//Foo.md")).toBe("Projects/Foo.md");
    expect(normalizeVaultPath("Café/Ünïcode.md")).toBe("Café/Ünïcode.md".normalize("NFC"));
    expect(normalizeVaultPath("100% sure.md")).toBe("100% sure.md");
  });

  test("a colon is a drive letter only as `C:` or `C:/…`; elsewhere POSIX takes it and Windows refuses it by name", () => {
    expect(normalizeVaultPath("a:b.md", "path", "linux")).toBe("a:b.md");
    expect(normalizeVaultPath("Meetings/10:30 standup.md", "path", "darwin")).toBe("Meetings/10:30 standup.md");
    expect(reason("C:")).toBe("absolute");
    expect(reason("C:\\x.md")).toBe("absolute");
    try {
      normalizeVaultPath("a:b.md", "path", "win32");
      throw new Error("accepted");
    } catch (err) {
      expect((err as IndxError).details?.reason).toBe("windows_name");
    }
  });

  test("refuses everything that could leave the vault", () => {
    expect(reason("../secret.md")).toBe("traversal");
    expect(reason("a/../../b.md")).toBe("traversal");
    expect(reason("%2e%2e%2fsecret.md")).toBe("traversal");
    expect(reason("%252e%252e%252fsecret.md")).toBe("traversal");
    expect(reason("/etc/passwd")).toBe("absolute");
    expect(reason("%2Fetc%2Fpasswd")).toBe("absolute");
    expect(reason("C:/Windows/x.md")).toBe("absolute");
    expect(reason("~/notes.md")).toBe("absolute");
    expect(reason("a\\..\\b.md")).toBe("backslash");
    expect(reason("a\0b.md")).toBe("nul");
    expect(reason("a%00b.md")).toBe("nul");
    expect(reason(".obsidian/app.json")).toBe("hidden");
    expect(reason("a/.git/config")).toBe("hidden");
    expect(reason("")).toBe("empty");
    expect(reason("/")).toBe("absolute");
    expect(reason(42)).toBe("empty");
    expect(reason("x".repeat(2000))).toBe("too_long");
  });

  test("a file or folder name over 255 bytes (the file system limit) is refused with the limit named", () => {
    expect(normalizeVaultPath(`${"n".repeat(252)}.md`)).toHaveLength(255);
    expect(reason(`${"n".repeat(253)}.md`)).toBe("name_too_long");
    expect(reason(`${"é".repeat(127)}.md`)).toBe("name_too_long"); // 254 + 3 bytes in UTF-8
    expect(reason(`${"d".repeat(256)}/note.md`)).toBe("name_too_long");
    expect(() => normalizeVaultPath(`${"n".repeat(297)}.md`)).toThrow("255 bytes");
  });
});
