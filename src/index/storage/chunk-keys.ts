/**
 * How chunk rows are keyed without a rowid or a second index: a chunk is (note id, place), and
 * the one number callers pass around is both in one (the place in the low 24 bits: a note of
 * 5 MiB has at most a few hundred thousand chunks). Content hashes (xxHash64, 16 hex digits) are
 * stored as the 64-bit integer they are: half the room of the text, in the table and its index.
 */
const ORD_SPAN = 2 ** 24;

/** The id of a note's chunk at place `ord`: what chunkIdSql computes in SQL. */
export const chunkIdOf = (fileId: number, ord: number) => fileId * ORD_SPAN + ord;

/** SQL for a chunk row's id, `alias` naming the chunks table. */
export const chunkIdSql = (alias: string) => `(${alias}.file_id * ${ORD_SPAN} + ${alias}.ord)`;

/** SQL that picks the chunk row `alias` of the chunk id `id` (an SQL expression). */
export const chunkOfIdSql = (alias: string, id: string) => `${alias}.file_id = ${id} / ${ORD_SPAN} AND ${alias}.ord = ${id} % ${ORD_SPAN}`;

/** SQL for a hash column as its 16 hex digits. */
export const hashHexSql = (column: string) => `printf('%016x', ${column})`;

/** A content hash (16 hex digits) as the signed 64-bit integer stored. */
export function hashKey(hex: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${hex}`));
}

/** The stored hash of a text: hashKey(etagOf(text)), without the 16 hex digits between. */
export function contentHashKey(text: string): bigint {
  return BigInt.asIntN(64, Bun.hash.xxHash64(text));
}

/** A JSON array of hashes as stored, for json_each; strings that are no hash are left out. */
export function hashKeyList(hexes: Iterable<string>): string {
  const keys: string[] = [];
  for (const h of hexes) if (/^[0-9a-f]{16}$/.test(h)) keys.push(hashKey(h).toString());
  return `[${keys.join(",")}]`;
}
