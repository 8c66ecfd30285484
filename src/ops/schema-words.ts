import type { TSchema } from "@sinclair/typebox";

/** The literal values a schema allows (a union of literals, nested unions too), or [] when it is not an enum. */
export function enumValues(schema: TSchema | undefined): string[] {
  if (!schema) return [];
  if (typeof schema.const === "string") return [schema.const];
  const options = (schema.anyOf ?? (schema.type === "array" ? schema.items?.anyOf : undefined)) as TSchema[] | undefined;
  if (!options) return [];
  const values = options.map(enumValues);
  return values.every((v) => v.length > 0) ? values.flat() : [];
}

/** "a, b or c". */
export function oneOf(values: readonly string[]): string {
  return values.length < 2 ? (values[0] ?? "") : `${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}`;
}

/**
 * What a schema expects, in words, for an error message: "must be lexical, semantic or hybrid",
 * "must be a whole number from 1 to 100". Null when words would say nothing more than the type.
 */
export function expectation(schema: TSchema): string | null {
  const values = enumValues(schema);
  if (values.length) return `must be ${oneOf(values)}`;
  const range = (min: unknown, max: unknown) =>
    typeof min === "number" && typeof max === "number"
      ? ` from ${min} to ${max}`
      : typeof min === "number"
        ? ` of at least ${min}`
        : typeof max === "number"
          ? ` of at most ${max}`
          : "";
  switch (schema.type) {
    case "integer":
      return `must be a whole number${range(schema.minimum, schema.maximum)}`;
    case "number":
      return `must be a number${range(schema.minimum, schema.maximum)}`;
    case "boolean":
      return "must be true or false";
    case "string":
      if (schema.minLength === 1 && schema.maxLength === undefined) return "must not be empty";
      if (typeof schema.maxLength === "number") return `must be text of at most ${schema.maxLength} characters${schema.minLength ? ", not empty" : ""}`;
      return "must be text";
    case "array":
      return `must be a list${typeof schema.maxItems === "number" ? ` of at most ${schema.maxItems} items` : ""}`;
    case "object":
      return "must be an object";
    default:
      return null;
  }
}
