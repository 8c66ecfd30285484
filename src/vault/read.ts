import { readFileSync, type Stats, statSync } from "node:fs";
import { looksBinary } from "../core/binary.ts";
import { IndxError } from "../core/errors.ts";
import { etagOf } from "../core/hash.ts";
import { type FileKind, fileKind } from "./scan.ts";
import type { Vault } from "./vault.ts";

export interface FileOnDisk {
  path: string;
  kind: FileKind;
  size: number;
  mtime: string;
}

/** Stats a vault file after the path checks; not_found when it is missing or not a file. */
export function statVaultFile(vault: Vault, input: unknown, what = "path"): FileOnDisk {
  const path = vault.safePath(input, what);
  let st: Stats;
  try {
    st = statSync(vault.abs(path));
  } catch {
    throw new IndxError("not_found", `No file at ${path}`, { path });
  }
  if (!st.isFile()) throw new IndxError("not_found", `No file at ${path}`, { path });
  return { path, kind: fileKind(path), size: st.size, mtime: st.mtime.toISOString() };
}

export interface NoteOnDisk extends FileOnDisk {
  text: string;
  etag: string;
}

/** Stats a Markdown note: path_invalid for any other kind of file (attachment_get reads those). */
export function statNote(vault: Vault, input: unknown): FileOnDisk {
  const file = statVaultFile(vault, input);
  if (file.kind !== "note")
    throw new IndxError("path_invalid", `${file.path} is not a Markdown note; use attachment_get for other files`, {
      reason: "wrong_kind",
      kind: file.kind,
    });
  return file;
}

/**
 * Reads a Markdown note from disk: the vault is the truth, so reads never serve stale text.
 * Over the size limit → payload_too_large unless allowLarge; binary bytes → parse_failed.
 */
export function readNote(vault: Vault, input: unknown, opts: { allowLarge?: boolean } = {}): NoteOnDisk {
  const file = statNote(vault, input);
  const limit = vault.config.int("retrieval.max_note_bytes");
  if (file.size > limit && !opts.allowLarge)
    throw new IndxError("payload_too_large", `${file.path} is ${file.size} bytes, over the ${limit}-byte read limit; pass allow_large to read it anyway`, {
      path: file.path,
      size: file.size,
      limit,
    });
  const bytes = readFileSync(vault.abs(file.path));
  if (looksBinary(bytes)) throw new IndxError("parse_failed", `${file.path} holds binary data, not Markdown text`, { path: file.path, reason: "binary" });
  return { ...file, size: bytes.length, text: new TextDecoder().decode(bytes), etag: etagOf(bytes) };
}
