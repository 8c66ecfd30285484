import type { Database, Statement } from "bun:sqlite";

/**
 * The posting lists of an FTS5 table, read from its own shadow tables (%_data, %_idx,
 * %_docsize) in the format fts5_index.c documents at its top: a structure record listing the
 * segments, leaf pages of prefix-compressed terms each followed by its doclist (rowid deltas and
 * position lists), and, for contentless_delete tables, tombstone hash pages per segment.
 *
 * Why read them at all: bm25() spends most of its time looking up each matching row's length in
 * %_docsize, one statement per row; with the lengths held in memory and the lists decoded here,
 * ranking costs a small part of that (docs/decisions.md, "Ranking without bm25()"). Anything this
 * does not recognise (another format version, a record that does not parse) is an
 * Fts5FormatError, and the caller ranks with FTS5 instead.
 */

export class Fts5FormatError extends Error {}

/** Called for each row that has a term: its counts by column (reused between calls) and, when asked, its positions. */
export type Visit = (rowid: number, counts: Uint32Array, positions: number[] | null) => void;

/** Where a term's doclist starts in a segment. */
interface DoclistStart {
  segment: Segment;
  page: number;
  leaf: Uint8Array;
  start: number;
  end: number;
}

interface Segment {
  id: number;
  first: number;
  last: number;
  /** Rowids deleted from this segment (contentless_delete tombstones). */
  tombstones: Set<number>;
  /** The %_idx entries: the first term of leaf pages (with the index's '0' prefix) and the page. */
  keys: Uint8Array[];
  pages: number[];
}

/** A consistent view of the index: valid until the next commit to the database (Fts5Postings.current). */
export class Fts5Snapshot {
  constructor(
    readonly rows: number,
    /** Tokens in each column over all rows. */
    readonly totals: number[],
    /** Segments, newest first (a newer segment's entry for a row wins). */
    private readonly segments: Segment[],
    /** Rows' lengths in each column (`columns` values per rowid): every row's, or those asked for so far. */
    private readonly sizes: RowLengths,
    private readonly readPage: (segment: number, page: number) => Uint8Array | null,
    private readonly columns: number,
  ) {
    this.lengths = sizes.values;
  }

  private lengths: Uint32Array;

  /** Whether ranking must name the rows it will ask lengths of (need) before it asks. */
  get partial(): boolean {
    return !this.sizes.complete;
  }

  /** Makes the lengths of these rows readable (a no-op when every row's is held). */
  need(rowids: readonly number[]): void {
    this.sizes.need(rowids);
    this.lengths = this.sizes.values;
  }

  /** Tokens in a row's column (0 for a row not read). */
  columnLength(rowid: number, column: number): number {
    return this.lengths[rowid * this.columns + column] ?? 0;
  }

  /** Tokens in a row, all columns (what bm25() takes as the document's length). */
  length(rowid: number): number {
    let total = 0;
    for (let c = 0; c < this.columns; c++) total += this.lengths[rowid * this.columns + c] ?? 0;
    return total;
  }

  /** Visits every live row with the term (as the tokenizer wrote it: folded and stemmed), in no set order. */
  visit(term: string, withPositions: boolean, visit: Visit): void {
    const key = Buffer.from(`0${term}`, "utf8");
    const starts: DoclistStart[] = [];
    for (const segment of this.segments) {
      const start = this.seek(segment, key);
      if (start) starts.push(start);
    }
    // A row in two segments was deleted from or rewritten into the newer one: only there does it count.
    const seen = starts.length > 1 ? new Set<number>() : null;
    for (const { segment, page, leaf, start, end } of starts) {
      let current = page;
      const nextPage = () => (current >= segment.last ? null : this.readPage(segment.id, ++current));
      readDoclist(leaf, start, end, nextPage, this.columns, withPositions, { seen, dead: segment.tombstones.size ? segment.tombstones : null, visit });
    }
  }

  private seek(segment: Segment, key: Uint8Array): DoclistStart | null {
    const page = Math.max(segment.first, pageBefore(segment, key));
    const leaf = this.readPage(segment.id, page);
    if (leaf === null) return null;
    const at = seekTerm(leaf, key);
    return at && { segment, page, leaf, ...at };
  }
}

/** The page whose first term is the last one at or before `key` (FTS5's `term<=? ORDER BY term DESC LIMIT 1`). */
function pageBefore(segment: Segment, key: Uint8Array): number {
  let lo = 0;
  let hi = segment.keys.length - 1;
  let page = 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (Buffer.compare(segment.keys[mid]!, key) <= 0) {
      page = segment.pages[mid]!;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return page;
}

/** Where the last varint read ended (a module variable: returning a pair allocated on every value). */
let after = 0;

/** SQLite's varint: big-endian groups of 7 bits, the ninth byte whole. Sets `after`. */
function varint(a: Uint8Array, i: number): number {
  const first = a[i];
  if (first !== undefined && first < 0x80) {
    after = i + 1;
    return first;
  }
  let v = 0;
  for (let n = 0; n < 8; n++) {
    const b = a[i + n];
    if (b === undefined) throw new Fts5FormatError("varint past the end of a record");
    v = v * 128 + (b & 0x7f);
    if (b < 0x80) {
      after = i + n + 1;
      return v;
    }
  }
  const last = a[i + 8];
  if (last === undefined) throw new Fts5FormatError("varint past the end of a record");
  after = i + 9;
  return v * 256 + last;
}

/** Reads a record of varints one after another. */
class Varints {
  constructor(
    private readonly bytes: Uint8Array,
    private at = 0,
  ) {}

  next(): number {
    const v = varint(this.bytes, this.at);
    this.at = after;
    return v;
  }

  done(): boolean {
    return this.at === this.bytes.length;
  }
}

const u16 = (a: Uint8Array, i: number) => (a[i]! << 8) | a[i + 1]!;

/**
 * Where the term's doclist lies on a leaf page (end: the next term's offset, or past the page
 * when none follows), or null when the page does not have it. Terms are stored as the bytes they
 * keep of the one before and the bytes they add; like fts5LeafSeek, this tracks how many bytes of
 * `key` the previous term matched instead of rebuilding each term.
 */
function seekTerm(leaf: Uint8Array, key: Uint8Array): { start: number; end: number } | null {
  const footer = u16(leaf, 2);
  if (footer >= leaf.length) return null;
  let termAt = varint(leaf, footer);
  let idx = after;
  let matched = 0;
  let first = true;
  while (true) {
    let i = termAt;
    let keep = 0;
    if (!first) {
      keep = varint(leaf, i);
      i = after;
    }
    const fresh = varint(leaf, i);
    i = after;
    if (i + fresh > footer) throw new Fts5FormatError("a term runs past its leaf page");
    // A term that keeps less of the one before than that one matched is already past the key.
    if (keep < matched) return null;
    // The footer holds each term's offset less the previous one's.
    const gap = idx < leaf.length ? varint(leaf, idx) : null;
    const nextIdx = after;
    if (keep === matched) {
      let k = 0;
      while (k < fresh && matched + k < key.length && leaf[i + k] === key[matched + k]) k++;
      matched += k;
      if (matched === key.length) {
        if (k === fresh) return { start: i + fresh, end: gap === null ? leaf.length + 1 : termAt + gap };
        return null;
      }
      if (k < fresh && leaf[i + k]! > key[matched]!) return null;
    }
    if (gap === null) return null;
    termAt += gap;
    idx = nextIdx;
    first = false;
  }
}

/**
 * The doclist from `start` on `first`. On that page it ends at `firstEnd` (the next term); past
 * the page it runs on over following pages: a position list continues at byte 4, the first rowid
 * on a page is absolute (at the offset in its header), and the doclist ends at a page's first term.
 */
function readDoclist(
  first: Uint8Array,
  start: number,
  firstEnd: number,
  nextPage: () => Uint8Array | null,
  columns: number,
  withPositions: boolean,
  rows: { seen: Set<number> | null; dead: Set<number> | null; visit: Visit },
): void {
  const { seen, dead, visit } = rows;
  const counts = new Uint32Array(columns);
  let leaf = first;
  let size = 0;
  /** Where the doclist stops on this page, and whether it may go on to the next. */
  let limit = 0;
  let continues = false;
  const enter = (page: Uint8Array, isFirst: boolean) => {
    leaf = page;
    size = u16(page, 2);
    const term = isFirst ? firstEnd : termOffset(page);
    limit = Math.min(term, size);
    continues = term > size;
  };
  const turnPage = (): boolean => {
    const next = continues ? nextPage() : null;
    if (next === null) return false;
    enter(next, false);
    return true;
  };
  enter(first, true);
  let rowid = varint(leaf, start);
  let i = after;
  while (true) {
    const header = varint(leaf, i);
    i = after;
    counts.fill(0);
    const positions: number[] | null = withPositions ? [] : null;
    // Values are offset + 2 (the first in a column) or delta + 2; 1 introduces a column number.
    let remaining = Math.floor(header / 2);
    let column = 0;
    let offset = 0;
    let value = 0;
    let marker = false;
    let columnStart = true;
    while (remaining > 0) {
      if (i >= size) {
        if (!turnPage()) throw new Fts5FormatError("a position list runs past its segment");
        i = 4;
        continue;
      }
      const b = leaf[i++]!;
      remaining--;
      value = value * 128 + (b & 0x7f);
      if (b >= 0x80) continue;
      if (marker) {
        column = value;
        marker = false;
        columnStart = true;
      } else if (value === 1) marker = true;
      else if (value >= 2) {
        if (column >= columns) throw new Fts5FormatError("a position in a column the table lacks");
        offset = columnStart ? value - 2 : offset + value - 2;
        columnStart = false;
        counts[column]!++;
        positions?.push(column * 2 ** 32 + offset);
      }
      value = 0;
    }
    if (seen?.has(rowid) !== true) {
      seen?.add(rowid);
      if ((header & 1) === 0 && dead?.has(rowid) !== true) visit(rowid, counts, positions);
    }
    if (i >= limit) {
      if (i < size || !turnPage()) return;
      i = u16(leaf, 0);
      if (i === 0) return;
    }
    // A page's first rowid is written whole; every other is a delta.
    const absolute = leaf !== first && i === u16(leaf, 0);
    const v = varint(leaf, i);
    i = after;
    rowid = absolute ? v : rowid + v;
  }
}

/** The offset of a page's first term, or past the page when it has none. */
function termOffset(leaf: Uint8Array): number {
  const footer = u16(leaf, 2);
  return footer < leaf.length ? varint(leaf, footer) : leaf.length + 1;
}

/** Row lengths are held in an array indexed by rowid (note ids), five per row: up to 80 MiB of it. */
const MAX_ROWID = 4_000_000;
const STRUCTURE_V2 = [0xff, 0x00, 0x00, 0x01];
/** %_data rowids: segment id, then 1 + 5 bits of doclist-index flag and height, then 31 of page. */
const PAGE_BITS = 37n;
const TOMBSTONE_SEGMENTS = 1n << 16n;

/**
 * Keeps a snapshot per version of the database: every query asks whether anything was committed
 * since (one small statement), and only then is the snapshot read again.
 */
export class Fts5Postings {
  private snapshot: Fts5Snapshot | null = null;
  /** The commits the snapshot has seen. */
  private version: string | null = null;
  /** Every row's length in each column as last read, and what tells which rows came since (see lengths()). */
  private sizes: { schema: number; origin: number; lengths: Uint32Array } | null = null;
  /** Rows whose lengths were read one by one since the last full read (see load()). */
  private fetched = 0;
  private statements: {
    commits: Statement<{ version: number; changes: number }, []>;
    records: Statement<{ id: number; block: Uint8Array }, []>;
    page: Statement<{ block: Uint8Array }, [bigint]>;
    schema: Statement<{ schema: number }, []>;
    sizesSince: Statement<{ id: number; sz: Uint8Array; origin: number }, [number]>;
    sizesOf: Statement<{ id: number; sz: Uint8Array }, [string]>;
  } | null = null;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly columns: number,
  ) {}

  /** Prepared on first use: the store makes this before it creates its tables. */
  private get sql() {
    this.statements ??= {
      commits: this.db.query("SELECT (SELECT data_version FROM pragma_data_version) AS version, total_changes() AS changes"),
      records: this.db.query(`SELECT id, block FROM ${this.table}_data WHERE id IN (1, 10) ORDER BY id`),
      page: this.db.query(`SELECT block FROM ${this.table}_data WHERE id = ?`),
      schema: this.db.query("SELECT schema_version AS schema FROM pragma_schema_version"),
      sizesSince: this.originQuery(),
      sizesOf: this.db.query(`SELECT id, sz FROM ${this.table}_docsize WHERE id IN (SELECT value FROM json_each(?))`),
    };
    return this.statements;
  }

  /**
   * Rows in the table, from the averages record FTS5 keeps up to date on every insert and delete:
   * one read of one record, at any size (a count(*) of a wide table reads all of it).
   */
  rowCount(): number {
    const averages = this.sql.page.get(1n);
    if (!averages) throw new Fts5FormatError("no averages record");
    return new Varints(averages.block).next();
  }

  /**
   * The current snapshot; throws Fts5FormatError when the table is not in a format read here. It
   * is read again after any commit to the database (PRAGMA data_version counts other connections'
   * commits, total_changes() this one's): a table rebuilt from scratch can have the same
   * structure record as before with other rows in it.
   */
  current(): Fts5Snapshot {
    const commits = this.sql.commits.get();
    const version = `${commits?.version}:${commits?.changes}`;
    if (this.snapshot === null || version !== this.version) {
      const [averages, structure] = this.sql.records.all();
      if (averages?.id !== 1 || structure?.id !== 10) throw new Fts5FormatError("no averages or structure record");
      this.snapshot = this.load(averages.block, structure.block);
      this.version = version;
    }
    return this.snapshot;
  }

  private load(averages: Uint8Array, structure: Uint8Array): Fts5Snapshot {
    const avg = new Varints(averages);
    const rows = avg.next();
    const totals = Array.from({ length: this.columns }, () => avg.next());
    const segments = this.segments(structure);
    return new Fts5Snapshot(rows, totals, segments, this.rowLengths(rows), (segment, page) => this.readPage(segment, page), this.columns);
  }

  /**
   * Every row's lengths once they were read whole (a reload then reads only the rows written
   * since); before that, only the rows a query matches, read when it names them. Reading every
   * row's was most of a fresh process's search (a CLI call: about 10 of 60 ms at 20,000 notes)
   * for a query that matches a few hundred. A query matching more than a quarter of the rows,
   * or a process that has read more rows one by one than the table holds (a server), reads them
   * all. The lengths are the same numbers either way: scores do not change.
   */
  private rowLengths(rows: number): RowLengths {
    if (this.sizes !== null || this.fetched > rows) return RowLengths.complete(this.lengths(), this.columns);
    return new RowLengths(this.columns, (missing, held) => {
      if (missing.length + held > rows / 4) return this.lengths();
      this.fetched += missing.length;
      return this.sql.sizesOf.values(JSON.stringify(missing)) as [number, Uint8Array][];
    });
  }

  /** Only a contentless_delete table's %_docsize has the `origin` column lengths() reads. */
  private originQuery(): Statement<{ id: number; sz: Uint8Array; origin: number }, [number]> {
    try {
      return this.db.query(`SELECT id, sz, origin FROM ${this.table}_docsize WHERE origin > ?`);
    } catch {
      throw new Fts5FormatError("no origin column in %_docsize (not a contentless_delete table)");
    }
  }

  /**
   * Every row's length in tokens in each column (`columns` values per rowid: ranking normalises
   * each field by its own length, src/index/lexical/bm25.ts). Reading them all is most of a reload (about
   * 13 of 20 ms at 100,000 notes), and a reload follows every write. A contentless_delete table
   * keeps in %_docsize the `origin` of each row: a counter FTS5 moves on at every commit that
   * writes to it, so the rows written since the last read are those with a larger origin (an
   * update is a delete and an insert). Rows deleted since keep their old length here, which
   * nothing reads: no doclist has them any more. A table dropped and made again (a rebuild)
   * counts origins from the start: the schema version, which any DROP or CREATE moves, says to
   * read everything again.
   */
  private lengths(): Uint32Array {
    const schema = this.sql.schema.get()?.schema ?? -1;
    const old = this.sizes?.schema === schema ? this.sizes : null;
    const changed = this.sql.sizesSince.values(old ? old.origin : -1) as [number, Uint8Array, number][];
    let top = old ? old.lengths.length / this.columns - 1 : 0;
    let origin = old ? old.origin : -1;
    for (const [id, , o] of changed) {
      if (id > top) top = id;
      if (o > origin) origin = o;
    }
    if (top > MAX_ROWID) throw new Fts5FormatError("rowids too large to index lengths by");
    // A new array each time: a snapshot handed out before keeps the lengths it was made with.
    const lengths = new Uint32Array((top + 1) * this.columns);
    if (old) lengths.set(old.lengths);
    for (const [id, sz] of changed) {
      const columns = new Varints(sz);
      for (let c = 0; c < this.columns; c++) lengths[id * this.columns + c] = columns.next();
    }
    this.sizes = { schema, origin, lengths };
    return lengths;
  }

  /** The segments of the structure record, newest first, with their %_idx keys and tombstones. */
  private segments(record: Uint8Array): Segment[] {
    const v2 = STRUCTURE_V2.every((b, k) => record[4 + k] === b);
    const s = new Varints(record, v2 ? 8 : 4);
    const levels = s.next();
    const total = s.next();
    s.next(); // write counter
    const byLevel: Segment[][] = [];
    const tombstonePages = new Map<number, number>();
    for (let l = 0; l < levels; l++) {
      s.next(); // segments in an ongoing merge
      const n = s.next();
      const level: Segment[] = [];
      for (let k = 0; k < n; k++) {
        const [id, first, last] = [s.next(), s.next(), s.next()];
        if (v2) {
          const [, , pages] = [s.next(), s.next(), s.next(), s.next(), s.next()]; // origins, tombstone pages, tombstone entries, entries
          tombstonePages.set(id, pages);
        }
        level.push({ id, first, last, tombstones: new Set(), keys: [], pages: [] });
      }
      byLevel.push(level.reverse());
    }
    const segments = byLevel.flat();
    if (segments.length !== total || !s.done()) throw new Fts5FormatError("the structure record does not add up");
    const byId = new Map(segments.map((seg) => [seg.id, seg]));
    for (const [segid, term, pgno] of this.db.query(`SELECT segid, term, pgno FROM ${this.table}_idx ORDER BY segid, term`).values() as [
      number,
      Uint8Array,
      number,
    ][]) {
      const seg = byId.get(segid);
      if (!seg) continue;
      seg.keys.push(term);
      seg.pages.push(Math.floor(pgno / 2));
    }
    for (const seg of segments)
      for (let p = 0; p < (tombstonePages.get(seg.id) ?? 0); p++)
        readTombstones(this.block((BigInt(seg.id) + TOMBSTONE_SEGMENTS) << PAGE_BITS, BigInt(p)), seg.tombstones);
    return segments;
  }

  private readPage(segment: number, page: number): Uint8Array | null {
    return this.block(BigInt(segment) << PAGE_BITS, BigInt(page));
  }

  private block(base: bigint, page: bigint): Uint8Array | null {
    return this.sql.page.get(base + page)?.block ?? null;
  }
}

/**
 * Rows' lengths by column, `columns` values per rowid: all of them, or (until `complete`) those
 * read so far. `read` gets the rows not yet held and how many are: it returns either their
 * (rowid, %_docsize record) pairs or every row's lengths.
 */
class RowLengths {
  complete = false;
  values: Uint32Array = new Uint32Array(0);
  /** Rows read, by rowid (1: read), while not complete. */
  private held: Uint8Array = new Uint8Array(0);
  private count = 0;

  constructor(
    private readonly columns: number,
    private readonly read: (missing: number[], held: number) => [number, Uint8Array][] | Uint32Array,
  ) {}

  static complete(values: Uint32Array, columns: number): RowLengths {
    const all = new RowLengths(columns, () => values);
    all.values = values;
    all.complete = true;
    return all;
  }

  need(rowids: readonly number[]): void {
    if (this.complete) return;
    const missing = [...new Set(rowids.filter((id) => this.held[id] !== 1))];
    if (!missing.length) return;
    const got = this.read(missing, this.count);
    if (got instanceof Uint32Array) {
      this.values = got;
      this.complete = true;
      this.held = new Uint8Array(0);
      return;
    }
    let top = 0;
    for (const id of missing) if (id > top) top = id;
    if (top > MAX_ROWID) throw new Fts5FormatError("rowids too large to index lengths by");
    if (top >= this.held.length) {
      const size = Math.max(top + 1, this.held.length * 2);
      const values = new Uint32Array(size * this.columns);
      values.set(this.values);
      const held = new Uint8Array(size);
      held.set(this.held);
      this.values = values;
      this.held = held;
    }
    // A row %_docsize lacks has no length to read: it counts 0, as when every row's is read.
    for (const id of missing) this.held[id] = 1;
    this.count += missing.length;
    for (const [id, sz] of got) {
      const columns = new Varints(sz);
      for (let c = 0; c < this.columns; c++) this.values[id * this.columns + c] = columns.next();
    }
  }
}

/** A tombstone hash page: an 8-byte header (key size, rowid-0 flag, 2 unused, entry count), then 4- or 8-byte big-endian slots. */
function readTombstones(page: Uint8Array | null, into: Set<number>): void {
  if (page === null || page.length < 8) return;
  const size = page[0]!;
  if (size !== 4 && size !== 8) throw new Fts5FormatError("a tombstone page with an unknown key size");
  if (page[1]) into.add(0);
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  for (let at = 8; at + size <= page.length; at += size) {
    const key = size === 4 ? view.getUint32(at) : Number(view.getBigUint64(at));
    if (key !== 0) into.add(key);
  }
}
