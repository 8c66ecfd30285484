import type { TObject } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import { assertJsonDepth, jsonUploadLimit, readBodyBytes, readBodyText } from "./body.ts";

/**
 * Query string → operation input. Repeated keys and comma lists become arrays where the schema
 * wants an array; `frontmatter.status=done` becomes {frontmatter: {status: "done"}}. Types are
 * coerced later by the schema (Value.Convert).
 */
export function inputFromQuery(params: URLSearchParams, schema: TObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    if (key.startsWith("frontmatter.")) {
      const fm = (out.frontmatter ??= {}) as Record<string, unknown>;
      fm[key.slice("frontmatter.".length)] = values[values.length - 1];
      continue;
    }
    const prop = schema.properties[key] as { type?: string } | undefined;
    if (prop?.type === "array")
      out[key] = values
        .flatMap((v) => v.split(","))
        .map((v) => v.trim())
        .filter(Boolean);
    else out[key] = values[values.length - 1];
  }
  return out;
}

/** A JSON request body, as the type header says (none: JSON). */
export function isJsonBody(request: Request): boolean {
  const type = request.headers.get("content-type") ?? "";
  return type === "" || type.includes("json");
}

/** An upload: the body's bytes (base64) as `field`, up to `limit` bytes; everything else from the query string. */
export async function inputFromRawBody(request: Request, url: URL, schema: TObject, field: string, limit: number): Promise<Record<string, unknown>> {
  const bytes = await readBodyBytes(request, limit);
  return { ...inputFromQuery(url.searchParams, schema), [field]: Buffer.from(bytes).toString("base64") };
}

/**
 * Reads a JSON object body, bounded in size, time and nesting; an empty body is {}. An upload's
 * route passes its upload limit, so its base64 in JSON may be as large as the raw body may.
 */
export async function inputFromBody(request: Request, uploadLimit?: number): Promise<Record<string, unknown>> {
  const type = request.headers.get("content-type") ?? "";
  const text = uploadLimit === undefined ? await readBodyText(request) : await readBodyText(request, jsonUploadLimit(uploadLimit));
  if (text.trim() === "") return {};
  if (type && !type.includes("json")) throw new IndxError("unsupported_media_type", "Send the request body as JSON (Content-Type: application/json).");
  assertJsonDepth(text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new IndxError("validation_failed", "The request body is not valid JSON.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new IndxError("validation_failed", "The request body must be a JSON object.");
  return body as Record<string, unknown>;
}

/** Decodes a URL path segment by segment; a bad escape is a typed error, not a crash. */
export function decodePath(rawPath: string): string {
  try {
    return rawPath
      .split("/")
      .map((s) => decodeURIComponent(s))
      .join("/");
  } catch {
    throw new IndxError("path_invalid", "The URL holds an invalid percent-escape.", { reason: "bad_escape" });
  }
}
