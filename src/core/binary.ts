const BINARY_SNIFF_BYTES = 8000;

/** A NUL byte in the first 8,000 bytes marks a file as binary (as git decides it). */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}
