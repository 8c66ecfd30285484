import type { Grant } from "../ops/grant.ts";
import type { VaultEvent } from "./types.ts";

/**
 * An event as a caller under a folder grant may see it (docs/permissions.md), or null: the one
 * filter of the SSE stream, `indx events` and MCP notifications. A change to a file the grant
 * hides did not happen for it; a move across its edge is a creation or a deletion; counts of
 * the whole vault (index.updated, tag.renamed) are left out, and an AI call that read a hidden
 * note is not shown.
 */
export function eventForGrant(event: VaultEvent, grant: Grant | null): VaultEvent | null {
  if (!grant) return event;
  const can = (p: string | undefined) => p === undefined || grant.canRead(p);
  switch (event.kind) {
    case "note.moved": {
      const from = event.from !== undefined && grant.canRead(event.from);
      const to = event.to !== undefined && grant.canRead(event.to);
      if (from && to) return event;
      const { from: f, to: t, ...rest } = event;
      if (to) return { ...rest, kind: "note.created", path: t };
      if (from) return { ...rest, kind: "note.deleted", path: f };
      return null;
    }
    case "note.created":
    case "note.updated":
    case "note.deleted":
      return can(event.path) ? event : null;
    case "index.updated": {
      const { count: _count, ...rest } = event;
      return rest;
    }
    case "tag.renamed":
      return null;
    case "ai.invocation": {
      const paths = [...(event.ai?.scope_paths ?? []), ...(event.ai?.applied_paths ?? []), event.path];
      return paths.every((p) => p === undefined || grant.canRead(p)) ? event : null;
    }
    default:
      return null;
  }
}
