/**
 * Random hex and SHA-256 without node:crypto: importing that module costs a compiled binary about
 * 12 ms at start-up, and these modules are on every CLI command's path (docs/decisions.md,
 * "A CLI search loads only what it runs"). Web Crypto and Bun's hasher are built in.
 */

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/** The SHA-256 of a string's UTF-8 bytes as lowercase hex (what createHash("sha256") gives). */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
