import { matchesGlob } from "../vault/glob.ts";
import { parseVaultUri, vaultUri } from "./uris.ts";

type Matcher = { kind: "path"; path: string } | { kind: "glob"; glob: string } | { kind: "any" } | { kind: "result"; fingerprint: string | null };

/**
 * One session's resources/subscribe set (docs/mcp.md, Subscriptions). An exact vault://<path> fires
 * notifications/resources/updated with its own URI when that file changes; a glob
 * (vault://Projects/**) fires with the URI of each changed file it covers; search, graph and
 * tags URIs fire with their own URI on any change; a base's result (vault://base/…) fires only when
 * the result itself changed, which the session finds out by reading it again (resultUris()).
 */
export class Subscriptions {
  private readonly byUri = new Map<string, Matcher>();

  /** Throws validation_failed for a URI that is not a vault:// resource. */
  add(uri: string): void {
    const parsed = parseVaultUri(uri);
    const matcher: Matcher =
      parsed.kind === "file"
        ? { kind: "path", path: parsed.path }
        : parsed.kind === "glob"
          ? { kind: "glob", glob: parsed.glob }
          : parsed.kind === "base"
            ? { kind: "result", fingerprint: null }
            : { kind: "any" };
    this.byUri.set(uri, matcher);
  }

  remove(uri: string): boolean {
    return this.byUri.delete(uri);
  }

  /** The subscribed URIs whose result is compared, not their paths. */
  resultUris(): string[] {
    return [...this.byUri].filter(([, m]) => m.kind === "result").map(([uri]) => uri);
  }

  /** Records what a result URI reads as now; true when that differs from before (and it was known). */
  resultChanged(uri: string, fingerprint: string): boolean {
    const m = this.byUri.get(uri);
    if (m?.kind !== "result") return false;
    const changed = m.fingerprint !== null && m.fingerprint !== fingerprint;
    m.fingerprint = fingerprint;
    return changed;
  }

  /** Every subscribed URI, of any kind. */
  uris(): string[] {
    return [...this.byUri.keys()];
  }

  get size(): number {
    return this.byUri.size;
  }

  /** The URIs to announce after an index update that changed these vault paths. */
  updatedUris(changed: readonly string[]): string[] {
    if (changed.length === 0) return [];
    const out = new Set<string>();
    for (const [uri, m] of this.byUri) {
      if (m.kind === "result") continue;
      if (m.kind === "any") out.add(uri);
      else if (m.kind === "path") {
        if (changed.includes(m.path)) out.add(uri);
      } else for (const p of changed) if (matchesGlob(p, m.glob)) out.add(vaultUri(p));
    }
    return [...out];
  }
}
