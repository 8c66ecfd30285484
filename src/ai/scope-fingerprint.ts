import { toIndxError } from "../core/errors.ts";
import { etagOf } from "../core/hash.ts";
import type { OpContext } from "../ops/context.ts";
import { type AiScope, resolveScope } from "./scope.ts";

/**
 * What an AI result over a scope was derived from, as one string: the notes the scope resolves to
 * now (after the AI globs) and the indexed version of each, or the code of the error resolving it
 * gives. It moves when a note in the scope changes and when a note joins or leaves the scope, and
 * never for a change elsewhere; no model is called to compute it.
 */
export async function scopeFingerprint(ctx: OpContext, scope: AiScope): Promise<string> {
  try {
    const { paths } = await resolveScope(ctx, scope, ctx.ai.globs());
    return etagOf(JSON.stringify(ctx.index.files.etagsOf(paths).map((n) => [n.path, n.etag])));
  } catch (err) {
    return `error:${toIndxError(err).code}`;
  }
}
