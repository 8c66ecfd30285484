/** ETag of a file's bytes: 16 lowercase hex of xxHash64 (docs/contracts.md, Identifiers). */
export function etagOf(bytes: Uint8Array | string): string {
  return Bun.hash.xxHash64(bytes).toString(16).padStart(16, "0");
}
