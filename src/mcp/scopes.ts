import type { Scope } from "../ops/define.ts";
import { hasScope } from "../ops/invoke.ts";

const ALL: Scope[] = ["vault:read", "vault:write", "vault:admin"];

/**
 * The scopes that every one of the given grants allows (admin ⊇ write ⊇ read is honoured).
 * An HTTP session keeps the scopes of the token that opened it; each request is then limited to
 * what both that token and the request's own token allow, so a session never gains rights.
 */
export function intersectScopes(...grants: ReadonlySet<Scope>[]): Set<Scope> {
  return new Set(ALL.filter((s) => grants.every((g) => hasScope(g, s))));
}

export function parseScopeList(list: readonly string[] | undefined): Set<Scope> {
  return new Set((list ?? []).filter((s): s is Scope => (ALL as string[]).includes(s)));
}
