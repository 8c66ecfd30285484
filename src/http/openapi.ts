import type { TObject, TSchema } from "@sinclair/typebox";
import type { App } from "../app/context.ts";
import { ERROR_CODES } from "../core/errors.ts";
import { VERSION } from "../core/version.ts";
import type { Scope } from "../ops/define.ts";
import { formFor, type OperationForm } from "../ops/read-only-form.ts";
import { errorCodesOf, errorResponses, exampleOf } from "./openapi-responses.ts";
import { ROUTES, type Route, templateOf } from "./routes.ts";

/** TypeBox schemas are JSON Schema; JSON round-tripping drops TypeBox's symbol keys. */
const plain = (s: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(s));

const ALL_SCOPES: ReadonlySet<Scope> = new Set(["vault:admin"]);

const ErrorEnvelope = {
  type: "object",
  required: ["ok", "error"],
  properties: {
    ok: { const: false },
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_CODES) },
        message: { type: "string" },
        details: { type: "object" },
      },
    },
  },
};

const EVENTS_OPERATION = {
  operationId: "events_stream",
  summary: "Stream vault events (Server-Sent Events)",
  description:
    "note.created / updated / deleted / moved, tag.renamed, index.updated — from writes through indx and from changes seen on disk. Events carry paths, counts and durations, never content. Scope `vault:read`.",
  tags: ["events"],
  parameters: [
    {
      name: "kinds",
      in: "query",
      description: "Comma-separated kinds or prefixes to receive (e.g. `note` or `note.moved,tag.renamed`); all when absent.",
      schema: { type: "string" },
    },
  ],
  responses: {
    "200": { description: "An event stream: `event: <kind>`, `data: <event JSON>`.", content: { "text/event-stream": { schema: { type: "string" } } } },
    "400": { description: "Unknown kind.", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    ...errorResponses(["unauthorized", "forbidden", "rate_limited"]),
  },
};

const NAMED_VAULTS =
  "Named vaults: every /v1/… path below is also served under /v1/vaults/{name}/… (e.g. /v1/vaults/work/search) for a vault the config file names with a [vaults.<name>] table, with that vault's own tokens, and MCP at /mcp/{name}. A token of another vault, and a name that is not configured, get 404 not_found. GET /v1/vaults (vault_list) lists them for an admin.";

function parameters(r: Route, input: TObject): unknown[] {
  const params: unknown[] = [];
  if (r.wildParam === "id") {
    params.push(
      { name: "path", in: "path", required: true, description: "Vault-relative note path (slashes allowed).", schema: { type: "string" } },
      { name: "index", in: "path", required: true, description: "Chunk index within the note.", schema: { type: "integer", minimum: 0 } },
    );
  } else if (r.wildParam) {
    params.push({
      name: r.wildParam,
      in: "path",
      required: true,
      description: r.wildParam === "path" ? "Vault-relative POSIX path; slashes are part of it, percent-encode other reserved characters." : undefined,
      schema: { type: "string" },
      example: r.wildParam === "tag" ? "project/active" : "Projects/Apollo Launch.md",
    });
  }
  const inputProps: Record<string, TSchema> = input.properties;
  // One if_match string maps to the header; an AI apply's per-note map of them does not.
  if (inputProps.if_match?.type === "string")
    params.push({
      name: "If-Match",
      in: "header",
      description: "Etag from your last read; 412 etag_mismatch if the file changed since.",
      schema: { type: "string" },
    });
  if ("idempotency_key" in inputProps)
    params.push({
      name: "Idempotency-Key",
      in: "header",
      description: "Same key + same request within 24 h replays the first result (X-Indx-Idempotent-Replay: true); another request is 409.",
      schema: { type: "string" },
    });
  if (r.respond === "etag")
    params.push({
      name: "If-None-Match",
      in: "header",
      description: "An etag you hold: 304 with no body when it is still current.",
      schema: { type: "string" },
    });
  if (r.input === "query") {
    const props: Record<string, TSchema> = input.properties;
    const required = new Set(input.required ?? []);
    for (const [name, schema] of Object.entries(props)) {
      if (name === r.wildParam) continue;
      if (name === "frontmatter") {
        params.push({
          name: "frontmatter.{key}",
          in: "query",
          description: "Frontmatter condition, e.g. frontmatter.status=done (repeat for more keys).",
          schema: { type: "string" },
        });
        continue;
      }
      const s = plain(schema);
      params.push({
        name,
        in: "query",
        required: required.has(name),
        description: s.description,
        schema: s,
        ...(s.type === "array" ? { style: "form", explode: true } : {}),
      });
    }
  }
  return params;
}

function operation(r: Route, form: OperationForm): Record<string, unknown> {
  const op = r.op;
  const success =
    r.respond === "exists"
      ? { description: "The file exists (404 when it does not)." }
      : {
          description: "Success envelope.",
          ...(r.respond === "etag" || r.respond === "written"
            ? { headers: { ETag: { description: "Quoted etag of the note's bytes.", schema: { type: "string" } } } }
            : {}),
          content: {
            "application/json": {
              schema: { type: "object", required: ["ok", "data"], properties: { ok: { const: true }, data: plain(op.output) } },
            },
            ...(r.respond === "attachment" ? { "application/octet-stream": { schema: { type: "string", format: "binary" } } } : {}),
            ...(op.ai && r.method === "POST"
              ? {
                  "text/event-stream": {
                    schema: {
                      type: "string",
                      description: "With Accept: text/event-stream: ai.partial, ai.citation, ai.usage events, then ai.complete with the data above.",
                    },
                  },
                }
              : {}),
          },
        };
  const created =
    r.respond === "written" && "created" in op.output.properties
      ? { "201": { ...success, description: "Created: the file did not exist before (200 when an existing one was replaced)." } }
      : {};
  const requestExample = r.input === "body" ? exampleOf(form.input) : undefined;
  return {
    operationId: `${op.name}${r.method === "POST" && ROUTES.some((o) => o.op === op && o.method === "GET") ? "_post" : ""}`,
    summary: op.title,
    description: `${form.description}\n\nOperation: \`${op.name}\` · scope \`${op.scope}\``,
    tags: [op.name.split("_")[0]],
    parameters: parameters(r, form.input),
    ...(r.input === "body"
      ? {
          requestBody: {
            required: false,
            content: {
              "application/json": { schema: plain(form.input), example: requestExample },
              // An upload may also be the file itself, its other fields in the query string.
              ...(r.raw ? { "application/octet-stream": { schema: { type: "string", format: "binary", description: `The bytes of ${r.raw.field}.` } } } : {}),
            },
          },
        }
      : {}),
    responses: {
      "200": success,
      ...created,
      ...(r.respond === "etag" ? { "304": { description: "Not modified: the If-None-Match etag is current." } } : {}),
      ...errorResponses(errorCodesOf(r)),
    },
  };
}

/**
 * OpenAPI 3.1 built from the route table and the operations' TypeBox schemas. For a caller's
 * scopes (a token sent with the request), operations that write only for some inputs are shown as
 * that caller may use them (docs/decisions.md, "AI apply").
 */
export function buildOpenApi(ctx?: App, scopes: ReadonlySet<Scope> = ALL_SCOPES): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    // AI routes appear once a model is configured (docs/contracts.md, AI runtime).
    if (r.op.ai && !ctx?.ai.offers(r.op.ai.needs)) continue;
    const p = (paths[templateOf(r)] ??= {});
    p[r.method.toLowerCase()] = operation(r, formFor(r.op, scopes));
  }
  paths["/v1/events"] = { get: EVENTS_OPERATION };
  return {
    openapi: "3.1.0",
    info: {
      title: "indx",
      version: VERSION,
      description:
        "Search, read and link-graph operations over an Obsidian-style Markdown vault. Every response is an envelope: {ok: true, data} or {ok: false, error: {code, message, details}}. Send Authorization: Bearer <token> on every /v1 route.\n\n" +
        NAMED_VAULTS,
    },
    // Said once rather than every path twice (docs/decisions.md, "Named vaults in /metrics and OpenAPI").
    "x-indx-named-vaults": { prefix: "/v1/vaults/{name}", mcp: "/mcp/{name}", list: "/v1/vaults" },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths: {
      "/health": {
        get: { summary: "Liveness", security: [], responses: { "200": { description: "Server is up." } } },
      },
      ...paths,
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An indx token (indx_…)." } },
      schemas: { Error: ErrorEnvelope },
    },
  };
}
