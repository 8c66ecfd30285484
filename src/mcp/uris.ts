import { IndxError } from "../core/errors.ts";
import { globToRegExp } from "../vault/glob.ts";

/**
 * The vault:// URI scheme (docs/mcp.md, URI scheme). Paths are percent-encoded per segment, so
 * "Projects/Apollo Launch.md" is vault://Projects/Apollo%20Launch.md and round-trips. The
 * synthetic names (graph, tags, search) take precedence over files of the same path.
 */
export const SCHEME = "vault://";

export type VaultUri =
  | { kind: "file"; path: string; download: boolean }
  | { kind: "glob"; glob: string }
  | { kind: "search"; params: URLSearchParams }
  | { kind: "graph"; cursor: string | null }
  | { kind: "backlinks"; path: string }
  | { kind: "forward"; path: string }
  | { kind: "base"; path: string; view: string | null }
  | { kind: "tags" };

/** encodeURIComponent leaves *'()! alone; * would read as a glob, so all five are escaped. */
function encodeSegment(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function vaultUri(path: string): string {
  return SCHEME + path.split("/").map(encodeSegment).join("/");
}

export const graphPageUri = (cursor: string) => `${SCHEME}graph?cursor=${encodeURIComponent(cursor)}`;

const invalid = (message: string, details: Record<string, unknown> = {}) => new IndxError("validation_failed", message, details);

function decodeSegments(raw: string): string {
  if (raw === "") throw invalid("The URI names no path.");
  return raw
    .split("/")
    .map((seg) => {
      let s: string;
      try {
        s = decodeURIComponent(seg);
      } catch {
        throw invalid("The URI has a malformed percent-encoding.");
      }
      if (s.includes("/")) throw invalid("A path segment may not contain an encoded '/'.");
      return s;
    })
    .join("/")
    .normalize("NFC");
}

/**
 * A glob from a URI path: unencoded * ? [ { are wildcards; percent-encoded characters are
 * literal (escaped for the glob). "?" starts the query in a URI, so it is not a wildcard here.
 */
function decodeGlob(raw: string): string {
  let out = "";
  const re = /((?:%[0-9A-Fa-f]{2})+)|([^%]+)|(%)/g;
  for (const m of raw.matchAll(re)) {
    if (m[1]) {
      let s: string;
      try {
        s = decodeURIComponent(m[1]);
      } catch {
        throw invalid("The URI has a malformed percent-encoding.");
      }
      out += s.replace(/[\\*?[\]{}]/g, (c) => `\\${c}`);
    } else if (m[2]) out += m[2];
    else throw invalid("The URI has a malformed percent-encoding.");
  }
  return out.normalize("NFC");
}

export const isGlobPath = (raw: string) => /[*[{]/.test(raw);

export function parseVaultUri(uri: string): VaultUri {
  if (typeof uri !== "string" || !uri.startsWith(SCHEME))
    throw invalid("Resource URIs look like vault://<path>, vault://search?q=…, vault://graph, vault://tags or vault://base/<path>.");
  const rest = uri.slice(SCHEME.length);
  const q = rest.indexOf("?");
  const raw = q >= 0 ? rest.slice(0, q) : rest;
  const params = new URLSearchParams(q >= 0 ? rest.slice(q + 1) : "");
  if (rest.includes("#")) throw invalid("Resource URIs have no fragment.");
  if (raw === "graph") return { kind: "graph", cursor: params.get("cursor") };
  if (raw === "tags") return { kind: "tags" };
  if (raw === "search") return { kind: "search", params };
  if (raw.startsWith("graph/backlinks/")) return { kind: "backlinks", path: decodeSegments(raw.slice("graph/backlinks/".length)) };
  if (raw.startsWith("graph/forward/")) return { kind: "forward", path: decodeSegments(raw.slice("graph/forward/".length)) };
  if (raw.startsWith("base/")) return { kind: "base", path: decodeSegments(raw.slice("base/".length)), view: params.get("view") };
  if (isGlobPath(raw)) {
    const glob = decodeGlob(raw);
    globToRegExp(glob); // validation_failed for a broken glob
    return { kind: "glob", glob };
  }
  const download = params.get("download");
  return { kind: "file", path: decodeSegments(raw), download: download === "1" || download === "true" };
}
