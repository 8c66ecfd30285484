import type { TSchema } from "@sinclair/typebox";
import { IndxError } from "../core/errors.ts";
import type { OpContext } from "./context.ts";
import type { AnyOperation } from "./define.ts";
import type { Grant } from "./grant.ts";
import { PATH_MARK } from "./schemas.ts";

/**
 * The folder-grant choke point (docs/permissions.md): invokeOp calls these for every operation on
 * every surface, so no operation checks a grant itself. What the operation sees is narrowed at its
 * source (the context hands it a grant's view of the index); these check what comes in and,
 * as a second wall, what goes out.
 */

interface MarkedPath {
  path: string;
  /** Only read, even by a call that writes (a template). */
  readOnly: boolean;
}

/** The values of the input fields the schema marks as vault paths (PATH_MARK), wherever they sit. */
export function markedPaths(schema: TSchema, value: unknown, out: MarkedPath[] = []): MarkedPath[] {
  if (value === undefined || value === null) return out;
  const mark = schema[PATH_MARK];
  if ((mark === true || mark === "read") && typeof value === "string") out.push({ path: value, readOnly: mark === "read" });
  if (Array.isArray(value) && schema.items) for (const item of value) markedPaths(schema.items as TSchema, item, out);
  if (typeof value === "object" && !Array.isArray(value) && schema.properties) {
    const props = schema.properties as Record<string, TSchema>;
    for (const [key, v] of Object.entries(value)) if (props[key]) markedPaths(props[key], v, out);
  }
  for (const alt of [...((schema.anyOf as TSchema[]) ?? []), ...((schema.allOf as TSchema[]) ?? [])]) markedPaths(alt, value, out);
  return out;
}

/** Does this call write? A write operation that is not a dry run, or an operation whose input asks it to write. */
function writes(op: AnyOperation, input: Record<string, unknown>): boolean {
  if (op.writes) return op.writes.when(input);
  return op.scope !== "vault:read" && !op.safe && input.dry_run !== true;
}

/**
 * Before the operation runs. In a call that writes, a path outside the grant's write globs is
 * refused before anything is read or planned (forbidden, whether or not the file exists: the
 * answer tells nothing of what is there). In a read, a path the grant may not read does not exist
 * for the caller: not_found, in the words a missing file gets ("No file at …").
 */
export function checkGrantedInput(op: AnyOperation, grant: Grant, input: Record<string, unknown>): void {
  const writing = writes(op, input);
  for (const { path, readOnly } of markedPaths(op.input, input)) {
    if (writing && !readOnly) {
      if (!grant.canWrite(path))
        throw new IndxError("forbidden", `This token may not write ${path}: it is outside the folders it may write.`, { reason: "outside_write_grant", path });
    } else if (!grant.canRead(path)) throw new IndxError("not_found", `No file at ${path}`, { path });
  }
}

/** The paths of the index a grant hides, kept until the index changes. */
function hiddenPaths(ctx: OpContext, grant: Grant): ReadonlySet<string> {
  const whole = ctx.wholeIndex().index;
  return whole.derived(
    `grant-hidden:${grant.key}`,
    () => {
      const hidden = new Set<string>();
      for (const path of whole.files.paths())
        if (!grant.canRead(path)) {
          hidden.add(path);
          if (path.endsWith(".md")) hidden.add(path.slice(0, -3));
        }
      return hidden;
    },
    (s) => s.size,
  );
}

/**
 * After the operation ran, the second wall: its output is walked, and a string that is the path
 * of a file the grant hides fails the call closed, with a message that names nothing. Reached
 * only if a source the context narrows was bypassed (a bug), so it is cheap when nothing is hidden.
 */
export function assertNothingHidden(ctx: OpContext, grant: Grant, output: unknown): void {
  let hidden: ReadonlySet<string>;
  try {
    hidden = hiddenPaths(ctx, grant);
  } catch {
    // No index (an operation that answers without one): its output comes from the disk, which
    // the input check guarded; nothing to compare with.
    return;
  }
  if (hidden.size === 0) return;
  const seen = (value: unknown, depth: number): boolean => {
    if (typeof value === "string") return hidden.has(value) || hidden.has(value.split("#")[0] ?? value);
    if (depth > 64 || value === null || typeof value !== "object") return false;
    if (Array.isArray(value)) return value.some((v) => seen(v, depth + 1));
    for (const [k, v] of Object.entries(value)) if (hidden.has(k) || seen(v, depth + 1)) return true;
    return false;
  };
  if (seen(output, 0)) throw withheld();
}

/**
 * An error of the operation that names a hidden file is replaced by one that names nothing. (The
 * input check's own refusals name only the caller's input and never come here.)
 */
export function scrubError(ctx: OpContext, grant: Grant, err: IndxError): IndxError {
  let hidden: ReadonlySet<string>;
  try {
    hidden = hiddenPaths(ctx, grant);
  } catch {
    return err;
  }
  const text = `${err.message}\n${JSON.stringify(err.details ?? null)}`;
  for (const path of hidden) if (path.includes("/") || path.includes(".") ? text.includes(path) : false) return withheld();
  return err;
}

function withheld(): IndxError {
  return new IndxError("internal", "The answer would have named a file this token may not read; it was withheld.", { reason: "grant_withheld" });
}
