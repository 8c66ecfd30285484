import { IndxError } from "../core/errors.ts";

/** 1 for each character of standard base64 (RFC 4648 §4), 2 for whitespace MIME puts between lines. */
const CLASS = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") CLASS[ch.charCodeAt(0)] = 1;
for (const ch of " \t\r\n\f\v") CLASS[ch.charCodeAt(0)] = 2;
const PAD = 61; // "="

const invalid = (why: string) => new IndxError("validation_failed", `data_base64 is not valid base64: ${why}.`, { field: "data_base64" });

/**
 * Decodes padded standard base64, whitespace allowed between characters, refusing anything else
 * with a typed error. One pass over the characters, no regular expression: a pattern over the
 * whole input gives up (JavaScriptCore's backtracking stack) past a few MiB, which refused every
 * upload above about 5 MiB as "not valid base64" (docs/decisions.md, "Attachments: base64 checked
 * by a scan"). The decoded size is checked against `limit` before any byte is decoded, so an
 * oversized upload costs one scan, not an allocation of its size.
 */
export function decodeBase64(data: string, limit: number): Uint8Array {
  let symbols = 0;
  let padding = 0;
  let whitespace = 0;
  for (let i = 0; i < data.length; i++) {
    const code = data.charCodeAt(i);
    const kind = code < 128 ? CLASS[code] : 0;
    if (kind === 2) {
      whitespace++;
      continue;
    }
    if (code === PAD) {
      padding++;
      continue;
    }
    if (kind !== 1) throw invalid(`a character that is not base64 at offset ${i}`);
    if (padding > 0) throw invalid(`a character after the "=" padding at offset ${i}`);
    symbols++;
  }
  const total = symbols + padding;
  if (padding > 2 || total % 4 !== 0 || (padding > 0 && symbols % 4 === 0))
    throw invalid(`${total} characters (without whitespace) with ${padding} "=", where groups of 4 are expected`);
  const size = (total / 4) * 3 - padding;
  if (size > limit)
    throw new IndxError("payload_too_large", `The attachment is ${size} bytes, over the ${limit}-byte limit (writes.max_attachment_bytes).`, { size, limit });
  return Buffer.from(whitespace > 0 ? data.replace(/[ \t\r\n\f\v]+/g, "") : data, "base64");
}
