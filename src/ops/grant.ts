import { type Static, Type } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";

/**
 * Folder grants (docs/permissions.md): which vault paths a token may read and write, as
 * vault-relative globs. Plain data, so it travels with a stored token, to a reader thread and,
 * later, inside an OAuth grant; src/vault/grant.ts compiles it into the predicate a call uses.
 */
export const GRANT_LIMITS = { globs: 32, chars: 256 } as const;

const GlobList = Type.Array(Type.String({ minLength: 1, maxLength: GRANT_LIMITS.chars }), { maxItems: GRANT_LIMITS.globs });

export const GrantSpecSchema = Type.Object(
  {
    read: Type.Optional(GlobList),
    write: Type.Optional(GlobList),
    deny: Type.Optional(GlobList),
  },
  { additionalProperties: false },
);
export type GrantSpec = Static<typeof GrantSpecSchema>;

/**
 * A compiled grant: what one call may see and change. Deny wins over everything; a path a token
 * may write it may also read (an agent drafting into Inbox/ reads what it wrote).
 */
export interface Grant {
  readonly spec: GrantSpec;
  /** The same key for the same globs: caches of what a grant sees (a scoped index) are shared by it. */
  readonly key: string;
  canRead(path: string): boolean;
  canWrite(path: string): boolean;
}

/** True when the spec narrows anything: no globs at all is today's meaning, the whole vault. */
export function isRestricting(spec: GrantSpec | undefined | null): spec is GrantSpec {
  return !!spec && (spec.read !== undefined || spec.write !== undefined || (spec.deny?.length ?? 0) > 0);
}

/**
 * Checks one grant's globs: vault-relative (no leading `/`, no drive, no backslash), no `..`
 * segment, no control characters, bounded in number and length. Returns the spec with each list
 * deduplicated; an empty spec means no grant.
 */
export function validateGrantSpec(spec: GrantSpec): GrantSpec {
  const out: GrantSpec = {};
  for (const kind of ["read", "write", "deny"] as const) {
    const list = spec[kind];
    if (list === undefined) continue;
    if (list.length > GRANT_LIMITS.globs) throw new IndxError("validation_failed", `A grant holds at most ${GRANT_LIMITS.globs} ${kind} globs.`, { kind });
    for (const glob of list) checkGlob(glob, kind);
    out[kind] = [...new Set(list)];
  }
  return out;
}

function checkGlob(glob: string, kind: string): void {
  const bad = (why: string) => new IndxError("validation_failed", `A ${kind} glob ${why}.`, { kind, reason: why });
  if (glob.length === 0 || glob.length > GRANT_LIMITS.chars) throw bad(`must have 1–${GRANT_LIMITS.chars} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u001f\u007f]/.test(glob)) throw bad("may not hold control characters");
  if (glob.startsWith("/") || /^[A-Za-z]:/.test(glob)) throw bad("must be vault-relative, not absolute");
  if (glob.includes("\\")) throw bad("uses '/' between folders, never '\\'");
  if (glob.split("/").some((s) => s === ".." || s === ".")) throw bad("may not hold '.' or '..' segments");
}
