/**
 * The `code` of a thrown value (a Node errno such as ENOENT, a library's code), or undefined: one
 * typed reading instead of a cast at every catch (docs/architecture.md).
 */
export function errnoOf(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  return typeof err.code === "string" ? err.code : undefined;
}
