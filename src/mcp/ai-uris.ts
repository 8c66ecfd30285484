import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { AiScope } from "../ai/scope.ts";
import { IndxError } from "../core/errors.ts";
import { parseInput } from "../ops/validate.ts";

/**
 * The ai:// URI scheme (docs/mcp.md, AI resources): ai://<resource>/<kind>/<value>[?options], where
 * the value is one percent-encoded component (a '/' inside it is %2F) and a paths scope lists its
 * paths comma-separated (a ',' inside a path is %2C). So every scope round-trips, reads in a log,
 * and expands from one RFC 6570 template. An AiScope as percent-encoded JSON
 * (ai://summary/%7B%22kind%22…%7D) is read too, for a caller that already holds one.
 */
export const AI_SCHEME = "ai://";

export const AI_RESOURCES = ["summary", "moc"] as const;
export type AiResource = (typeof AI_RESOURCES)[number];

export interface AiUri {
  resource: AiResource;
  scope: AiScope;
}

/** Longer URIs are refused: a scope that large is better named by a glob, tag or query. */
export const MAX_AI_URI_CHARS = 8_192;

/** The options each scope kind takes after '?': the scope's own optional fields. */
const OPTIONS: Record<AiScope["kind"], readonly ("mode" | "limit" | "include_linked")[]> = {
  paths: [],
  glob: [],
  tag: [],
  query: ["mode", "limit"],
  note: ["include_linked"],
};

const VALUE_FIELD = { glob: "path_glob", tag: "tag", query: "q", note: "path" } as const;

export const isAiUri = (uri: string) => uri.startsWith(AI_SCHEME);

/** The canonical URI of a resource over a scope: fields in a fixed order, so one scope has one URI. */
export function aiUri(resource: AiResource, scope: AiScope): string {
  const base = `${AI_SCHEME}${resource}/${scope.kind}/`;
  const value = scope.kind === "paths" ? (scope.paths ?? []).map(encodeURIComponent).join(",") : encodeURIComponent(scope[VALUE_FIELD[scope.kind]] ?? "");
  const query = new URLSearchParams();
  for (const option of OPTIONS[scope.kind]) if (scope[option] !== undefined) query.set(option, String(scope[option]));
  const search = query.toString();
  return base + value + (search ? `?${search}` : "");
}

const invalid = (message: string, details: Record<string, unknown> = {}) => new IndxError("validation_failed", message, details);

const ScopeHolder = Type.Object({ scope: AiScope }, { additionalProperties: false });

/** The resource and scope an ai:// URI names; validation_failed (with the scope's field errors) otherwise. */
export function parseAiUri(uri: string): AiUri {
  if (uri.length > MAX_AI_URI_CHARS) throw invalid(`An ai:// URI is at most ${MAX_AI_URI_CHARS} characters; name a large scope by glob, tag or query.`);
  const match = /^ai:\/\/([a-z]+)\/([^?#]*)(\?[^#]*)?$/.exec(uri);
  const resource = AI_RESOURCES.find((r) => r === match?.[1]);
  const raw = match?.[2];
  if (!match || !resource || raw === undefined) throw invalid("AI resource URIs look like ai://summary/<kind>/<value> or ai://moc/<kind>/<value>.");
  const params = new URLSearchParams(match[3] ?? "");
  const scope = raw.startsWith("%7B") || raw.startsWith("{") ? jsonScope(raw, params) : compactScope(raw, params);
  return { resource, scope: validScope(scope) };
}

function jsonScope(raw: string, params: URLSearchParams): unknown {
  if (params.size > 0) throw invalid("A JSON scope carries its options inside the JSON.");
  try {
    return JSON.parse(decode(raw));
  } catch (err) {
    if (err instanceof IndxError) throw err;
    throw invalid("The scope in the URI is not valid JSON.");
  }
}

function compactScope(raw: string, params: URLSearchParams): Record<string, unknown> {
  const slash = raw.indexOf("/");
  const kind = slash < 0 ? raw : raw.slice(0, slash);
  const value = slash < 0 ? "" : raw.slice(slash + 1);
  if (!(kind in OPTIONS)) throw invalid(`Unknown scope kind '${kind.slice(0, 20)}': use paths, glob, tag, query or note.`, { field: "scope.kind" });
  const scopeKind = kind as AiScope["kind"];
  if (value.includes("/")) throw invalid("The scope's value is one component: percent-encode '/' as %2F.", { field: "scope" });
  const scope: Record<string, unknown> = { kind: scopeKind };
  if (scopeKind === "paths") scope.paths = value.split(",").map(decode);
  else scope[VALUE_FIELD[scopeKind]] = decode(value);
  for (const key of new Set(params.keys())) {
    const option = OPTIONS[scopeKind].find((o) => o === key);
    if (!option) throw invalid(`A ${scopeKind} scope takes no option '${key.slice(0, 40)}'.`, { field: `scope.${key.slice(0, 40)}` });
    if (params.getAll(key).length > 1) throw invalid(`The option '${key}' is given twice.`, { field: `scope.${key}` });
    const text = params.get(key) ?? "";
    scope[option] = option !== "mode" && /^\d{1,6}$/.test(text) ? Number(text) : text;
  }
  return scope;
}

function decode(component: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    throw invalid("The URI has a malformed percent-encoding.");
  }
}

/**
 * The scope as written (defaults are the operation's to apply, so the URI stays canonical),
 * checked against AiScope; a bad one fails as the operations fail, in the same words.
 */
function validScope(scope: unknown): AiScope {
  if (Value.Check(AiScope, scope)) return scope;
  parseInput({ name: "the ai:// resource", input: ScopeHolder }, { scope });
  throw invalid("The URI names no valid scope.");
}
