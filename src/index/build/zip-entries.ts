import { inflateRawSync } from "node:zlib";

/**
 * A bounded reader of ZIP archives, enough for the parts of a DOCX (docs/decisions.md, "Document
 * text: unpdf and a DOCX reader of our own"): the central directory tells where each entry is,
 * and an entry is inflated with a cap on its output, so a zip bomb stops at the cap whatever its
 * headers claim.
 */
export class ZipError extends Error {}

interface Entry {
  method: number;
  compressedSize: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export class ZipEntries {
  private readonly entries = new Map<string, Entry>();
  private readonly view: DataView;
  private used = 0;

  constructor(
    private readonly bytes: Uint8Array,
    /** What all the entries read may decompress to, together. */
    private readonly maxTotal: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const end = this.findEnd();
    const count = this.view.getUint16(end + 10, true);
    let at = this.view.getUint32(end + 16, true);
    for (let i = 0; i < count; i++) {
      if (at + 46 > bytes.length || this.view.getUint32(at, true) !== CENTRAL) throw new ZipError("its central directory is damaged");
      const nameLength = this.view.getUint16(at + 28, true);
      const extra = this.view.getUint16(at + 30, true);
      const comment = this.view.getUint16(at + 32, true);
      const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
      this.entries.set(name, {
        method: this.view.getUint16(at + 10, true),
        compressedSize: this.view.getUint32(at + 20, true),
        localOffset: this.view.getUint32(at + 42, true),
      });
      at += 46 + nameLength + extra + comment;
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** An entry's text, or null when the archive has none of that name. */
  text(name: string): string | null {
    const e = this.entries.get(name);
    if (!e) return null;
    const at = e.localOffset;
    if (at + 30 > this.bytes.length || this.view.getUint32(at, true) !== LOCAL) throw new ZipError(`its entry ${name} is damaged`);
    const start = at + 30 + this.view.getUint16(at + 26, true) + this.view.getUint16(at + 28, true);
    const data = this.bytes.subarray(start, start + e.compressedSize);
    if (data.length < e.compressedSize) throw new ZipError(`its entry ${name} is cut short`);
    const room = this.maxTotal - this.used;
    let out: Uint8Array;
    if (e.method === 0) out = data;
    else if (e.method === 8) {
      try {
        out = inflateRawSync(data, { maxOutputLength: Math.max(1, room) });
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === "ERR_BUFFER_TOO_LARGE" || room <= 0) throw new ZipError(`it decompresses to more than ${this.maxTotal} bytes (a zip bomb?)`);
        throw new ZipError(`its entry ${name} does not inflate`);
      }
    } else throw new ZipError(`its entry ${name} uses compression method ${e.method}`);
    this.used += out.length;
    if (this.used > this.maxTotal) throw new ZipError(`it decompresses to more than ${this.maxTotal} bytes (a zip bomb?)`);
    return new TextDecoder().decode(out);
  }

  private findEnd(): number {
    // The end record is in the last 22 bytes plus a comment of at most 65,535.
    const stop = Math.max(0, this.bytes.length - 22 - 65_535);
    for (let at = this.bytes.length - 22; at >= stop; at--) if (this.view.getUint32(at, true) === EOCD) return at;
    throw new ZipError("it is not a ZIP archive (a DOCX is one)");
  }
}
