import { IndxError } from "../core/errors.ts";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The bytes as text (a leading BOM dropped), or null when they are not valid UTF-8: a lossy decode
 * would turn each bad byte into U+FFFD, and writing that text back would change bytes nobody edited.
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

export function startsWithUtf8Bom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

export function notUtf8(path: string): IndxError {
  return new IndxError(
    "encoding_unsupported",
    `${path} is not valid UTF-8 text, so it cannot be edited without changing bytes outside the edit. Convert it to UTF-8 first, or replace it whole.`,
    { path, reason: "not_utf8" },
  );
}
