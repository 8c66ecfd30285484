/**
 * The part of JSON Schema 2020-12 ai_extract takes from a caller (docs/contracts.md, AI runtime:
 * ai_extract). A keyword outside it is refused rather than ignored: a caller who writes
 * `exclusiveMinimum` expects it enforced, and a provider's constrained decoding supports only a
 * small common core anyway. Size and nesting are bounded because the schema goes into every prompt.
 */

import { linearPatternProblem } from "../../linear-regex.ts";

export interface SchemaProblem {
  /** JSON Pointer into the caller's schema. */
  path: string;
  message: string;
}

export const SCHEMA_LIMITS = {
  /** The schema as compact JSON. */
  bytes: 32_768,
  /** Subschemas inside subschemas. */
  depth: 12,
  subschemas: 500,
  enumValues: 200,
  patternChars: 500,
  problems: 50,
} as const;

export const SUPPORTED_FORMATS = ["date", "date-time", "email", "uri"] as const;

const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";
const ANNOTATIONS = ["title", "description", "$comment", "default", "examples"];
const ASSERTIONS = [
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "anyOf",
  "oneOf",
  "$ref",
];
const SUPPORTED = new Set([...ANNOTATIONS, ...ASSERTIONS]);
const ROOT_ONLY = new Set(["$schema", "$defs"]);
const LOCAL_REF = /^#\/\$defs\/([^/]+)$/;

const pointer = (path: string, key: string | number) => `${path}/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What in `schema` falls outside the subset or its bounds; empty when it is inside. The meta-schema
 * check (types of keyword values) is the validator's; this is what the validator would accept but
 * ai_extract does not.
 */
export function subsetProblems(schema: unknown): SchemaProblem[] {
  if (!isObject(schema)) return [{ path: "", message: "The schema must be a JSON object." }];
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
  if (bytes > SCHEMA_LIMITS.bytes) return [{ path: "", message: `The schema is ${bytes} bytes of JSON; at most ${SCHEMA_LIMITS.bytes} are taken.` }];
  return new SubsetWalk(schema).run();
}

class SubsetWalk {
  readonly problems: SchemaProblem[] = [];
  private subschemas = 0;
  private readonly defs: Set<string>;

  constructor(private readonly root: Record<string, unknown>) {
    this.defs = new Set(isObject(root.$defs) ? Object.keys(root.$defs) : []);
  }

  run(): SchemaProblem[] {
    const { $schema } = this.root;
    if ($schema !== undefined && $schema !== DRAFT_2020) this.add("/$schema", `Only JSON Schema 2020-12 ("${DRAFT_2020}") is supported.`);
    this.visit(this.root, "", 0);
    if (isObject(this.root.$defs)) for (const [name, def] of Object.entries(this.root.$defs)) this.visit(def, pointer("/$defs", name), 1);
    return this.problems.slice(0, SCHEMA_LIMITS.problems);
  }

  private add(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  private visit(node: unknown, path: string, depth: number): void {
    if (++this.subschemas > SCHEMA_LIMITS.subschemas) {
      if (this.subschemas === SCHEMA_LIMITS.subschemas + 1) this.add(path, `The schema has more than ${SCHEMA_LIMITS.subschemas} subschemas.`);
      return;
    }
    if (typeof node === "boolean") return;
    if (!isObject(node)) return this.add(path, "A subschema must be an object or a boolean.");
    if (depth > SCHEMA_LIMITS.depth) return this.add(path, `Subschemas nest deeper than ${SCHEMA_LIMITS.depth} levels.`);
    for (const [key, value] of Object.entries(node)) {
      const at = pointer(path, key);
      if (ROOT_ONLY.has(key)) {
        if (path !== "") this.add(at, `"${key}" is supported at the root of the schema only.`);
      } else if (!SUPPORTED.has(key)) {
        this.add(at, `"${key}" is not supported; ai_extract takes: ${ASSERTIONS.join(", ")} (and ${ANNOTATIONS.join(", ")}).`);
      } else {
        this.keyword(key, value, at, depth);
      }
    }
  }

  private keyword(key: string, value: unknown, at: string, depth: number): void {
    switch (key) {
      case "properties":
        if (isObject(value)) for (const [name, sub] of Object.entries(value)) this.visit(sub, pointer(at, name), depth + 1);
        return;
      case "additionalProperties":
      case "items":
        if (isObject(value) || typeof value === "boolean") this.visit(value, at, depth + 1);
        return;
      case "anyOf":
      case "oneOf":
        if (Array.isArray(value)) for (const [i, sub] of value.entries()) this.visit(sub, pointer(at, i), depth + 1);
        return;
      case "enum":
        if (Array.isArray(value) && value.length > SCHEMA_LIMITS.enumValues) this.add(at, `An enum may list at most ${SCHEMA_LIMITS.enumValues} values.`);
        return;
      case "format":
        if (typeof value === "string" && !(SUPPORTED_FORMATS as readonly string[]).includes(value))
          this.add(at, `The format "${value}" is not supported; ai_extract checks ${SUPPORTED_FORMATS.join(", ")}.`);
        return;
      case "pattern":
        if (typeof value === "string") this.pattern(value, at);
        return;
      case "$ref":
        if (typeof value === "string") this.ref(value, at);
        return;
    }
  }

  private pattern(value: string, at: string): void {
    if (value.length > SCHEMA_LIMITS.patternChars) return this.add(at, `A pattern may be at most ${SCHEMA_LIMITS.patternChars} characters.`);
    try {
      new RegExp(value, "u");
    } catch {
      return this.add(at, "The pattern is not a valid regular expression (ECMAScript, with the u flag).");
    }
    const problem = linearPatternProblem(value);
    if (problem) this.add(at, problem);
  }

  private ref(value: string, at: string): void {
    const name = LOCAL_REF.exec(value)?.[1];
    if (name === undefined) return this.add(at, 'Only local references of the form "#/$defs/<name>" are supported.');
    let decoded: string;
    try {
      decoded = decodeURIComponent(name).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return this.add(at, "The reference is not a valid URI fragment.");
    }
    if (!this.defs.has(decoded)) this.add(at, `"${value}" names no entry of $defs.`);
  }
}
