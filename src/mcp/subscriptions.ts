import { matchesGlob } from "../vault/glob.ts";
import { parseVaultUri, vaultUri } from "./uris.ts";

type Matcher = { kind: "path"; path: string } | { kind: "glob"; glob: string } | { kind: "any" };

/**
 * One session's resources/subscribe set (docs/mcp.md, Subscriptions). An exact vault://<path> fires
 * notifications/resources/updated with its own URI when that file changes; a glob
 * (vault://Projects/**) fires with the URI of each changed file it covers; search, graph and
 * tags URIs fire with their own URI on any change.
 */
export class Subscriptions {
  private readonly byUri = new Map<string, Matcher>();

  /** Throws validation_failed for a URI that is not a vault:// resource. */
  add(uri: string): void {
    const parsed = parseVaultUri(uri);
    const matcher: Matcher =
      parsed.kind === "file" ? { kind: "path", path: parsed.path } : parsed.kind === "glob" ? { kind: "glob", glob: parsed.glob } : { kind: "any" };
    this.byUri.set(uri, matcher);
  }

  remove(uri: string): boolean {
    return this.byUri.delete(uri);
  }

  get size(): number {
    return this.byUri.size;
  }

  /** The URIs to announce after an index update that changed these vault paths. */
  updatedUris(changed: readonly string[]): string[] {
    if (changed.length === 0) return [];
    const out = new Set<string>();
    for (const [uri, m] of this.byUri) {
      if (m.kind === "any") out.add(uri);
      else if (m.kind === "path") {
        if (changed.includes(m.path)) out.add(uri);
      } else for (const p of changed) if (matchesGlob(p, m.glob)) out.add(vaultUri(p));
    }
    return [...out];
  }
}
