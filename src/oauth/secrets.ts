import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** sha256 hex: how every OAuth secret is kept (the secret itself is handed out once, never stored). */
export const hashSecret = (s: string): string => createHash("sha256").update(s).digest("hex");

/** A bearer secret with a prefix that says what it is (indx_at_…, indx_rt_…, indx_ac_…). */
export const newSecret = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`;

export const newId = (prefix: string): string => `${prefix}${randomBytes(6).toString("hex")}`;

export const ACCESS_PREFIX = "indx_at_";
export const REFRESH_PREFIX = "indx_rt_";
export const CODE_PREFIX = "indx_ac_";

/** Equal strings, compared in constant time over their hashes (lengths may differ). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(hashSecret(a), "hex"), Buffer.from(hashSecret(b), "hex"));
}

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(verifier)) equals the challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return sameSecret(createHash("sha256").update(verifier).digest("base64url"), challenge);
}

/** RFC 7636 §4.1: 43–128 characters of [A-Za-z0-9-._~]; the S256 challenge is 43 base64url characters. */
export const VERIFIER_SYNTAX = /^[A-Za-z0-9\-._~]{43,128}$/;
export const CHALLENGE_SYNTAX = /^[A-Za-z0-9_-]{43}$/;

/** Crockford base32 without look-alikes: what a person types from a terminal into a form. */
const APPROVAL_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789";

/**
 * A one-time owner approval code, 16 characters in groups of four (about 78 bits): typed by hand,
 * yet far beyond guessing within its ten minutes (docs/decisions.md, OAuth: the owner's proof).
 */
export function newApprovalCode(): string {
  const bytes = randomBytes(16);
  let out = "";
  for (let i = 0; i < 16; i++) out += APPROVAL_ALPHABET[(bytes[i] ?? 0) % APPROVAL_ALPHABET.length];
  return out.match(/.{4}/g)?.join("-") ?? out;
}

/** What the owner typed, in the form the code was hashed in: case, spaces and dashes do not matter. */
export const normalizeApprovalCode = (typed: string): string => {
  const bare = typed.toUpperCase().replace(/[\s-]/g, "");
  return bare.match(/.{1,4}/g)?.join("-") ?? bare;
};
