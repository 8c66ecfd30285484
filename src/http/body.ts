import { IndxError } from "../core/errors.ts";
import { INPUT_LIMITS } from "../ops/schemas.ts";

const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The JSON body limit of a route whose field carries an upload of up to `uploadLimit` bytes as
 * base64: the upload's own limit decides (its base64 is 4/3 of it, plus the rest of the object),
 * never less than every other body may be.
 */
export function jsonUploadLimit(uploadLimit: number): number {
  return Math.max(MAX_BODY_BYTES, Math.ceil(uploadLimit / 3) * 4 + 64 * 1024);
}

/**
 * How long a request body may stop arriving before it is refused. A client that declares more
 * bytes than it sends would otherwise hold its request open until the connection's idle timeout.
 */
const BODY_STALL_TIMEOUT_MS = 3_000;

/**
 * Reads a request body as text, refusing it once it grows past `MAX_BODY_BYTES` (declared or
 * streamed) and when no bytes arrive for `BODY_STALL_TIMEOUT_MS`.
 */
export async function readBodyText(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  return new TextDecoder().decode(await readBodyBytes(request, limit));
}

/** The body's bytes, bounded like readBodyText but by `limit` (an upload's own limit). */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const tooLarge = () => new IndxError("payload_too_large", `The request body is over ${limit} bytes.`, { limit });
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await within(reader.read(), BODY_STALL_TIMEOUT_MS);
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw tooLarge();
      parts.push(value);
    }
  } catch (err) {
    void reader.cancel().catch(() => {});
    throw err;
  }
  return Buffer.concat(parts);
}

async function within<T>(read: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new IndxError("validation_failed", `The request body stopped arriving (nothing for ${ms / 1000} s).`, { reason: "body_incomplete" })),
      ms,
    );
  });
  try {
    return await Promise.race([read, stalled]);
  } catch (err) {
    if (err instanceof IndxError) throw err;
    throw new IndxError("validation_failed", "The request body could not be read completely.", { reason: "body_incomplete" });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Refuses JSON text nested deeper than the input limit with one linear scan, so that neither
 * JSON.parse nor the schema validator ever recurses through a hostile document.
 */
export function assertJsonDepth(text: string, max: number = INPUT_LIMITS.depth): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) throw new IndxError("validation_failed", `The request body is nested deeper than ${max} levels.`, { limit: max });
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
