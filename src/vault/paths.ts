import { realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { IndxError } from "../core/errors.ts";

/** The longest file or folder name, in bytes, that common file systems (ext4, APFS, NTFS) take. */
export const MAX_NAME_BYTES = 255;

/**
 * Turns an untrusted vault-relative path into a safe, normalised POSIX path, or throws
 * path_invalid. Nothing here touches the disk; see `assertInsideVault` for symlinks.
 * Refused: empty, NUL, absolute (POSIX, drive letters, UNC), backslashes, `..` segments
 * (also when percent-encoded), and hidden segments (dot files and dot folders are never vault
 * content: docs/contracts.md, Privacy and safety).
 */
export function normalizeVaultPath(input: unknown, what = "path", platform: NodeJS.Platform = process.platform): string {
  if (typeof input !== "string" || input.trim() === "") throw invalid(`${what} is required`, "empty");
  if (input.includes("\0")) throw invalid(`${what} contains a NUL byte`, "nul");
  if (input.length > 1024) throw invalid(`${what} is too long`, "too_long");
  let decoded = input;
  // Percent-encoded traversal (%2e%2e%2f) must not slip past the segment check after a later decode.
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(decoded); i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      break;
    }
  }
  for (const candidate of [input, decoded]) {
    if (candidate.startsWith("/") || candidate.startsWith("~")) throw invalid(`${what} must be relative to the vault`, "absolute");
    // A drive letter only when it stands alone or before a slash (`C:`, `C:/x`): on POSIX `a:b.md`
    // is a plain relative name; Windows refuses the colon below (windowsNameProblem).
    if (/^[a-zA-Z]:([\\/]|$)/.test(candidate)) throw invalid(`${what} must be relative to the vault, not start with a drive letter`, "absolute");
    if (candidate.includes("\\")) throw invalid(`${what} must use forward slashes`, "backslash");
    if (candidate.includes("\0")) throw invalid(`${what} contains a NUL byte`, "nul");
  }
  const parts: string[] = [];
  for (const seg of input.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") throw invalid(`${what} must not leave the vault`, "traversal");
    parts.push(seg);
  }
  for (const seg of decoded.split("/")) {
    if (seg === "..") throw invalid(`${what} must not leave the vault`, "traversal");
  }
  if (parts.length === 0) throw invalid(`${what} is required`, "empty");
  if (parts.some((p) => p.startsWith("."))) throw invalid(`${what} points into a hidden file or folder`, "hidden");
  if (parts.some((p) => Buffer.byteLength(p.normalize("NFC")) > MAX_NAME_BYTES))
    throw invalid(`${what} has a file or folder name longer than ${MAX_NAME_BYTES} bytes (the file system limit)`, "name_too_long");
  if (platform === "win32")
    for (const seg of parts) {
      const problem = windowsNameProblem(seg);
      if (problem) throw invalid(`${what} ${problem} (Windows refuses it)`, "windows_name");
    }
  return parts.join("/").normalize("NFC");
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])(\.|$)/i;

/**
 * Why Windows cannot have a file or folder of this name, or null. A `:` would even write an
 * NTFS alternate data stream of another file, so these are refused before any file is touched.
 */
export function windowsNameProblem(segment: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what Windows refuses here
  if (/[<>:"|?*\x00-\x1f]/.test(segment)) return `has a name with one of < > : " | ? * or a control character`;
  if (WINDOWS_RESERVED.test(segment)) return `uses a reserved device name (${segment.split(".")[0]})`;
  if (/[. ]$/.test(segment)) return "has a name ending in a dot or a space";
  return null;
}

function invalid(message: string, reason: string): IndxError {
  return new IndxError("path_invalid", message, { reason });
}

/**
 * Follows symlinks on the way to `rel` and refuses the path if it resolves outside the vault.
 * Works for paths that do not exist yet by checking the deepest existing ancestor.
 */
export function assertInsideVault(rootReal: string, rel: string): string {
  const abs = join(rootReal, rel);
  let probe = abs;
  while (true) {
    let real: string | null = null;
    try {
      real = realpathSync(probe);
    } catch {
      real = null;
    }
    if (real !== null) {
      if (real !== rootReal && !real.startsWith(rootReal + sep))
        throw new IndxError("path_invalid", "path resolves outside the vault", { reason: "symlink_escape" });
      return abs;
    }
    const parent = probe.slice(0, probe.lastIndexOf(sep));
    if (parent.length < rootReal.length) return abs;
    probe = parent;
  }
}
