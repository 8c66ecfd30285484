import type { Config } from "../config/load.ts";

/**
 * Typed links (docs/obsidian.md, Typed links): a link in a frontmatter property is a relation
 * named by the property (`up: "[[Projects]]"` is an `up` relation to Projects). Which properties
 * count is the config key links.typed_keys; names compare case-insensitively, as Obsidian's
 * property names do.
 */
export class TypedLinks {
  private readonly all: boolean;
  private readonly keys: ReadonlySet<string>;

  constructor(typedKeys: readonly string[]) {
    this.all = typedKeys.includes("*");
    this.keys = new Set(typedKeys.map((k) => k.toLowerCase()));
  }

  static fromConfig(config: Config): TypedLinks {
    return new TypedLinks(config.list("links.typed_keys"));
  }

  /** The relation of a link held by frontmatter property `property`; undefined for body links and untyped properties. */
  relOf(property: string | null | undefined): string | undefined {
    if (!property) return undefined;
    return this.all || this.keys.has(property.toLowerCase()) ? property : undefined;
  }
}

/** A caller's `rel` filter (one name or several) as a test on a link's relation; null when there is none. */
export function relFilter(rel: string | readonly string[] | undefined): ((rel: string | undefined) => boolean) | null {
  if (rel === undefined) return null;
  const wanted = new Set((typeof rel === "string" ? [rel] : rel).map((r) => r.toLowerCase()));
  return (r) => r !== undefined && wanted.has(r.toLowerCase());
}
