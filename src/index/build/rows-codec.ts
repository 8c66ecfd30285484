import type {
  BlockValues,
  ChunkValues,
  DocumentValues,
  FtsValues,
  LinkValues,
  NoteRows,
  NoteStatus,
  NoteValues,
  PropertyValues,
  TagValues,
} from "../storage/rows.ts";
import type { FileRows, IndexWarning } from "./file-rows.ts";

/**
 * A batch of FileRows as bytes, the way a rows worker hands it to the writer: written into a
 * buffer the two threads share and reuse, so no object graph or buffer per batch is made on one
 * thread for the other to free (docs/decisions.md, "Building a large vault"). Encodes into
 * `into`, or into a larger buffer from `grow` when the batch does not fit there; returns the
 * buffer that holds it and its length.
 */
export function encodeRows(batch: (FileRows | null)[], into: Uint8Array, grow: (size: number) => Uint8Array): { buffer: Uint8Array; length: number } {
  const w = new Writer(into, grow);
  w.count(0); // where the texts start, once known
  w.count(batch.length);
  for (const file of batch) {
    w.flag(file !== null);
    if (!file) continue;
    w.text(file.etag);
    w.flag(file.warning !== undefined);
    if (file.warning) {
      w.text(file.warning.code);
      w.text(file.warning.path);
      w.text(file.warning.message);
    }
    w.flag(file.note !== null);
    if (file.note) writeNote(w, file.note);
    w.flag(file.document !== undefined);
    if (file.document) {
      const [format, pages, problem, message] = file.document;
      w.text(format);
      w.number(pages);
      w.texts(problem, message);
    }
  }
  w.end();
  return { buffer: w.buffer, length: w.length };
}

export function decodeRows(bytes: Uint8Array): (FileRows | null)[] {
  const r = new Reader(bytes);
  return r.list(() => {
    if (!r.flag()) return null;
    const etag = r.text();
    const warning = r.flag() ? readWarning(r) : undefined;
    const note = r.flag() ? readNote(r) : null;
    const document: DocumentValues | undefined = r.flag() ? [r.str(), r.number(), r.text(), r.text()] : undefined;
    return { etag, note, ...(warning ? { warning } : {}), ...(document ? { document } : {}) };
  });
}

function writeNote(w: Writer, n: NoteRows): void {
  const [title, aliases, tags, frontmatter, fmError, status, tasks, text] = n.note;
  w.texts(title, aliases, tags, frontmatter, fmError, status);
  w.number(tasks);
  w.blob(text);
  w.list(n.links, (l) => {
    const [ord, embed, syntax, linkpath, subpath, display, raw, line, col, prop, rel, key] = l;
    w.numbers(ord, embed);
    w.texts(syntax, linkpath, subpath, display, raw);
    w.numbers(line, col);
    w.texts(prop, rel, key);
  });
  w.list(n.tags, ([tag, lower, uses]) => {
    w.texts(tag, lower);
    w.number(uses);
  });
  w.list(n.properties, ([ord, keyLower, key, num, text, day, link, bool]) => {
    w.number(ord);
    w.texts(keyLower, key);
    w.flag(num !== null);
    if (num !== null) w.number(num);
    w.texts(text, day, link);
    w.flag(bool !== null);
    if (bool !== null) w.number(bool);
  });
  w.list(n.blocks, ([lower, id, line]) => {
    w.texts(lower, id);
    w.number(line);
  });
  w.list(n.chunks, ([ord, start, end, hash]) => {
    w.numbers(ord, start, end);
    w.bigint(hash);
  });
  w.flag(n.fts !== null);
  if (n.fts) {
    const [title, aliases, tags, headings, body] = n.fts;
    w.texts(title, aliases, tags, headings);
    if (typeof body === "string") w.utf8(body);
    else w.blob(body);
  }
  w.text(n.cjk);
}

function readNote(r: Reader): NoteRows {
  // Every value is read back in the order writeNote() wrote it, and so with the type it had there.
  const note: NoteValues = [r.str(), r.str(), r.str(), r.text(), r.text(), r.str() as NoteStatus, r.number(), r.blob()];
  const links = r.list(
    (): LinkValues => [r.number(), r.number(), r.text(), r.str(), r.str(), r.text(), r.text(), r.number(), r.number(), r.text(), r.text(), r.text()],
  );
  const tags = r.list((): TagValues => [r.str(), r.str(), r.number()]);
  const properties = r.list(
    (): PropertyValues => [r.number(), r.str(), r.text(), r.flag() ? r.number() : null, r.text(), r.text(), r.text(), r.flag() ? r.number() : null],
  );
  const blocks = r.list((): BlockValues => [r.str(), r.str(), r.number()]);
  const chunks = r.list((): ChunkValues => [r.number(), r.number(), r.number(), r.bigint()]);
  const fts: FtsValues | null = r.flag() ? [r.str(), r.str(), r.str(), r.str(), r.blob()!] : null;
  return { note, links, tags, properties, blocks, chunks, fts, cjk: r.text() };
}

function readWarning(r: Reader): IndexWarning {
  return { code: r.str() as IndexWarning["code"], path: r.str(), message: r.str() };
}

const UTF8 = new TextEncoder();

/** Length of a null text or blob. */
const NULL = 0xffffffff;

/**
 * Numbers, flags and blobs go in order; the texts are written after them as one UTF-8 run, each
 * value recorded as its length in UTF-16 code units. The reader decodes that run once and slices
 * it: a decode per text cost the writer's thread 2.7 s of a 100,000-note build, this 1.5 s.
 */
class Writer {
  private view: DataView;
  private at = 0;
  private readonly pending: string[] = [];
  private pendingLength = 0;

  constructor(
    private buf: Uint8Array,
    private readonly grow: (size: number) => Uint8Array,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get buffer(): Uint8Array {
    return this.buf;
  }

  get length(): number {
    return this.at;
  }

  flag(on: boolean): void {
    this.room(1);
    this.buf[this.at++] = on ? 1 : 0;
  }

  count(n: number): void {
    this.room(4);
    this.view.setUint32(this.at, n);
    this.at += 4;
  }

  number(n: number): void {
    this.room(8);
    this.view.setFloat64(this.at, n);
    this.at += 8;
  }

  numbers(...ns: number[]): void {
    for (const n of ns) this.number(n);
  }

  bigint(n: bigint): void {
    this.room(8);
    this.view.setBigInt64(this.at, n);
    this.at += 8;
  }

  text(s: string | null): void {
    if (s === null) return this.count(NULL);
    this.count(s.length);
    this.pending.push(s);
    this.pendingLength += s.length;
  }

  /** Writes the texts, and where they start. */
  end(): void {
    const start = this.at;
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    this.room(this.pendingLength * 3);
    this.at += UTF8.encodeInto(this.pending.join(""), this.buf.subarray(this.at)).written;
    this.view.setUint32(0, start);
  }

  texts(...ss: (string | null)[]): void {
    for (const s of ss) this.text(s);
  }

  /** A text as a blob of its UTF-8 bytes, encoded straight into the buffer. */
  utf8(s: string): void {
    this.room(4 + s.length * 3);
    const { written } = UTF8.encodeInto(s, this.buf.subarray(this.at + 4));
    this.view.setUint32(this.at, written);
    this.at += 4 + written;
  }

  blob(b: Uint8Array | null): void {
    if (b === null) return this.count(NULL);
    this.count(b.length);
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  list<T>(items: T[], write: (item: T) => void): void {
    this.count(items.length);
    for (const item of items) write(item);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = this.grow(Math.max(this.buf.length * 2, this.at + n));
    grown.set(this.buf.subarray(0, this.at));
    this.buf = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }
}

class Reader {
  private readonly view: DataView;
  private at = 0;
  private readonly texts: string;
  private textAt = 0;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.texts = new TextDecoder().decode(buf.subarray(this.count()));
  }

  flag(): boolean {
    return this.buf[this.at++] === 1;
  }

  count(): number {
    const n = this.view.getUint32(this.at);
    this.at += 4;
    return n;
  }

  number(): number {
    const n = this.view.getFloat64(this.at);
    this.at += 8;
    return n;
  }

  bigint(): bigint {
    const n = this.view.getBigInt64(this.at);
    this.at += 8;
    return n;
  }

  text(): string | null {
    const n = this.count();
    if (n === NULL) return null;
    this.textAt += n;
    return this.texts.slice(this.textAt - n, this.textAt);
  }

  /** A text that is never null. */
  str(): string {
    return this.text() ?? "";
  }

  blob(): Uint8Array | null {
    const n = this.count();
    if (n === NULL) return null;
    const b = this.buf.slice(this.at, this.at + n);
    this.at += n;
    return b;
  }

  list<T>(read: () => T): T[] {
    const items: T[] = [];
    for (let n = this.count(); n > 0; n--) items.push(read());
    return items;
  }
}
