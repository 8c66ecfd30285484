import { errnoOf } from "../core/errno.ts";
import { IndxError } from "../core/errors.ts";
import { MAX_NAME_BYTES } from "../vault/paths.ts";

/**
 * The one mapping from a file system error met while writing to the error callers see. Messages
 * are fixed sentences (a system error's message names absolute paths); the errno is the detail.
 */
export function writeError(err: unknown, details: Record<string, unknown> = {}): IndxError {
  if (err instanceof IndxError) return err;
  const errno = errnoOf(err);
  const d = { ...details, reason: errno ?? "io" };
  switch (errno) {
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new IndxError("forbidden", "The file system refused the write (permissions or a read-only disk).", d);
    case "ENOSPC":
    case "EDQUOT":
      return new IndxError("disk_full", "The disk is full (or the quota is used up); free some space and retry.", d);
    case "ENAMETOOLONG":
      return new IndxError("path_invalid", `A file or folder name is longer than the file system allows (${MAX_NAME_BYTES} bytes per name).`, d);
    default:
      return new IndxError("internal", "The file system refused the write.", d);
  }
}
