import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { IndxError } from "../../../core/errors.ts";
import { ajvLinearRegExp } from "../../linear-regex.ts";
import { type SchemaProblem, SUPPORTED_FORMATS, subsetProblems } from "./schema-subset.ts";

/** Validator errors reported for one value: enough to see what is wrong, never a wall of text. */
const MAX_VALUE_ERRORS = 5;

type JsonObject = Record<string, unknown>;

let shared: Ajv2020 | null = null;

/**
 * One validator for the process: building one compiles the 2020-12 meta-schema (tens of
 * milliseconds), which a call should not pay. Caller schemas are compiled per call and removed
 * after it (CallerSchema.dispose), so the validator's cache does not grow with every schema seen.
 */
function validator(): Ajv2020 {
  if (!shared) {
    // Patterns run in a linear-time engine: they are matched against what a model wrote (src/ai/linear-regex.ts).
    shared = new Ajv2020({ allErrors: true, strict: false, code: { regExp: ajvLinearRegExp } });
    addFormats(shared, [...SUPPORTED_FORMATS]);
  }
  return shared;
}

/**
 * A caller's JSON Schema for ai_extract, checked and compiled once for the call
 * (docs/decisions.md, "ai_extract"): ajv (Ajv2020 with ajv-formats) checks it against the 2020-12
 * meta-schema and compiles it; schema-subset.ts refuses what ai_extract does not take.
 */
export class CallerSchema {
  private readonly whole: ValidateFunction;
  /** For a schema whose root is an array of one item schema: each item on its own. */
  private readonly item: ValidateFunction | null;
  private readonly compiled: JsonObject[];

  private constructor(readonly schema: JsonObject) {
    const ajv = validator();
    const itemSchema = isObject(schema.items) || typeof schema.items === "boolean" ? itemsOnly(schema) : null;
    this.compiled = [schema, ...(itemSchema ? [itemSchema] : [])];
    try {
      this.whole = ajv.compile(schema);
      this.item = itemSchema ? ajv.compile(itemSchema) : null;
    } catch (err) {
      this.dispose();
      throw invalid([{ path: "", message: err instanceof Error ? err.message : "The schema does not compile." }]);
    }
  }

  /** The schema, checked: ai_schema_invalid (422) with details.errors[{path, message}] when it is not one ai_extract takes. */
  static check(schema: unknown): CallerSchema {
    const problems = subsetProblems(schema);
    if (problems.length) throw invalid(problems);
    const ajv = validator();
    if (!ajv.validateSchema(schema as JsonObject)) throw invalid((ajv.errors ?? []).map((e) => ({ path: e.instancePath, message: describe(e) })));
    return new CallerSchema(schema as JsonObject);
  }

  /** Whether items of the array the schema describes are checked, and dropped, one by one. */
  get checksItems(): boolean {
    return this.item !== null;
  }

  /** The validator's errors for `data` (empty when it is valid), at most a few. */
  errors(data: unknown): SchemaProblem[] {
    return run(this.whole, data);
  }

  /** The errors of one item of an array schema, at paths inside the item (empty when valid, or when the schema is not an array's). */
  itemErrors(item: unknown): SchemaProblem[] {
    if (!this.item) return [];
    return run(this.item, [item]).map((e) => ({ ...e, path: e.path.replace(/^\/0(?=\/|$)/, "") || "/" }));
  }

  /** The schema without what belongs at a document's root ($schema, $defs): to embed it in the model's reply shape. */
  get body(): JsonObject {
    const { $schema: _schema, $defs: _defs, ...body } = this.schema;
    return body;
  }

  get defs(): JsonObject | undefined {
    return isObject(this.schema.$defs) ? this.schema.$defs : undefined;
  }

  /** Forgets the compiled validators; the call is over. */
  dispose(): void {
    const ajv = validator();
    for (const s of this.compiled) ajv.removeSchema(s);
  }
}

/** An array schema's items as a schema of a one-item array, keeping $defs so its references resolve. */
function itemsOnly(schema: JsonObject): JsonObject {
  return { ...(schema.$defs ? { $defs: schema.$defs } : {}), type: "array", items: schema.items };
}

function run(validate: ValidateFunction, value: unknown): SchemaProblem[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, MAX_VALUE_ERRORS).map((e) => ({ path: e.instancePath || "/", message: describe(e) }));
}

function describe(e: ErrorObject): string {
  const extra = e.params as { additionalProperty?: unknown; allowedValues?: unknown };
  if (typeof extra.additionalProperty === "string") return `${e.message ?? "is not allowed"}: "${extra.additionalProperty}"`;
  return e.message ?? `fails ${e.keyword}`;
}

function invalid(errors: SchemaProblem[]): IndxError {
  const first = errors[0];
  return new IndxError("ai_schema_invalid", `The schema is not one ai_extract takes${first ? `: ${first.path || "/"} ${first.message}` : ""}.`, {
    errors,
  });
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
