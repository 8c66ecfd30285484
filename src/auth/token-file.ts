import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { IndxError } from "../core/errors.ts";
import { writeFileAtomic } from "../core/write-file-atomic.ts";
import type { Scope } from "../ops/define.ts";

/** The fields every stored token record has; the secret itself is returned once and never kept. */
export const TOKEN_RECORD_FIELDS = {
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.Union([Type.Literal("vault:read"), Type.Literal("vault:write"), Type.Literal("vault:admin")])),
  /** sha256 of the token, hex. */
  hash: Type.String({ pattern: "^[0-9a-f]{64}$" }),
  created_at: Type.String(),
};

export const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

export function newToken(): string {
  return `indx_${randomBytes(32).toString("base64url")}`;
}

/** A new token and the fields of its record (TOKEN_RECORD_FIELDS). */
export function newTokenRecord(name: string, scopes: Scope[]): { token: string; id: string; name: string; scopes: Scope[]; hash: string; created_at: string } {
  if (!name.trim() || name.length > 100) throw new IndxError("validation_failed", "A token needs a name of 1–100 characters.");
  const token = newToken();
  return { token, id: `tok_${randomBytes(6).toString("hex")}`, name: name.trim(), scopes, hash: sha256(token), created_at: new Date().toISOString() };
}

/** The record whose hash is the presented token's, compared in constant time. */
export function findByToken<T extends { hash: string }>(records: readonly T[], presented: string): T | undefined {
  const hash = Buffer.from(sha256(presented), "hex");
  return records.find((t) => timingSafeEqual(Buffer.from(t.hash, "hex"), hash));
}

/**
 * A JSON file of token records (`{ "tokens": [...] }`, mode 0600): tokens.json of a vault and
 * vault-tokens.json beside the config file. It is read again when its stamp changes, so a token
 * created or revoked by another process (`indx token …`) counts on the very next request; a file
 * that does not match the schema (edited by hand, cut short) is refused whole, since a
 * half-read grant could reach more than it was given.
 */
export class TokenFile<R extends TSchema> {
  private readonly schema;
  private records: Static<R>[] = [];
  private loadedStamp = "\0";

  constructor(
    readonly file: string,
    record: R,
    /** The refusal when the file is unreadable: names the file as the user knows it, never its path. */
    private readonly unreadable: string,
  ) {
    this.schema = Type.Object({ tokens: Type.Optional(Type.Array(record)) });
  }

  private stamp(): string {
    try {
      const st = statSync(this.file);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      return "";
    }
  }

  /** The records as the file holds them now. */
  read(): Static<R>[] {
    this.loadedStamp = this.stamp();
    if (!existsSync(this.file)) return (this.records = []);
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(this.file, "utf8"));
    } catch {
      data = null;
    }
    if (!Value.Check(this.schema, data)) throw new IndxError("internal", this.unreadable);
    this.records = (data as { tokens?: Static<R>[] }).tokens ?? [];
    return this.records;
  }

  /** The records, read again only when another writer changed the file. */
  fresh(): Static<R>[] {
    return this.stamp() === this.loadedStamp ? this.records : this.read();
  }

  write(records: Static<R>[]): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.file, `${JSON.stringify({ tokens: records }, null, 2)}\n`, 0o600);
    this.records = records;
    this.loadedStamp = this.stamp();
  }
}
