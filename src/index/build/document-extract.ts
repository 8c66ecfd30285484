import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MessageChannel, type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import { type DocumentFormat, type ExtractedDocument, type ExtractLimits, failed } from "./document-types.ts";

/** What the extraction worker is sent first: where to answer and what to count its answers on. */
export interface ExtractInit {
  port: MessagePort;
  signal: Int32Array;
}

/** What the extraction worker is asked: one file's bytes. */
export interface ExtractRequest {
  seq: number;
  bytes: Uint8Array;
  format: DocumentFormat;
  limits: ExtractLimits;
}

export interface ExtractResponse {
  seq: number;
  document: ExtractedDocument;
}

/**
 * Bumped when extraction makes other text from the same bytes: cached results of another version
 * are not read (document-extract.ts's cache is keyed by content hash and this).
 */
const EXTRACTOR_VERSION = 1;

/**
 * Extracts documents on a worker of its own and waits for each synchronously, as the index pass
 * that calls it is synchronous (it runs on the index worker, a rows worker or a CLI's thread,
 * never on a thread that answers requests: docs/decisions.md, "Index passes off the request
 * thread"). A document that outlasts `timeoutMs` has its worker ended, and the next starts a new
 * one: pdf.js has no way to stop a parse from outside.
 */
export class DocumentExtractor {
  private worker: Worker | null = null;
  private port: MessagePort | null = null;
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private seq = 0;

  constructor(private readonly limits: ExtractLimits) {}

  extract(bytes: Uint8Array, format: DocumentFormat): ExtractedDocument {
    const port = this.ensure();
    const seq = ++this.seq;
    const request: ExtractRequest = { seq, bytes, format, limits: this.limits };
    this.worker?.postMessage(request);
    const deadline = performance.now() + this.limits.timeoutMs;
    for (;;) {
      // Read the count before looking: an answer posted after the look moves it, and wait() returns at once.
      const answered = Atomics.load(this.signal, 0);
      const got = receiveMessageOnPort(port);
      if (got) {
        const answer: ExtractResponse = got.message;
        if (answer.seq === seq) return answer.document;
        continue;
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        this.close();
        return failed(format, "timeout", `its extraction took longer than ${Math.round(this.limits.timeoutMs / 1000)} s`);
      }
      Atomics.wait(this.signal, 0, answered, left);
    }
  }

  close(): void {
    this.worker?.terminate();
    this.worker = null;
    this.port?.close();
    this.port = null;
  }

  private ensure(): MessagePort {
    if (this.worker && this.port) return this.port;
    const { port1, port2 } = new MessageChannel();
    // smol: a heap that collects more eagerly, for a thread that holds one document at a time.
    this.worker = new Worker(new URL("./document-worker.ts", import.meta.url), { smol: true });
    this.port = port1;
    const init: ExtractInit = { port: port2, signal: this.signal };
    this.worker.postMessage(init, [port2]);
    return port1;
  }
}

/**
 * Extraction results by content hash, in the data folder: a renamed or copied document, or one
 * indexed again after a rebuild, is not extracted again (docs/documents.md).
 */
export class ExtractionCache {
  constructor(private readonly dir: string) {}

  get(etag: string): ExtractedDocument | null {
    try {
      const bytes = readFileSync(this.file(etag));
      return JSON.parse(Bun.zstdDecompressSync(bytes).toString()) as ExtractedDocument;
    } catch {
      return null;
    }
  }

  put(etag: string, doc: ExtractedDocument): void {
    // A timeout or a heap overrun may pass on another run (a less loaded machine): not cached.
    if (doc.problem === "timeout" || doc.problem === "memory") return;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${this.file(etag)}.${process.pid}.tmp`;
      writeFileSync(tmp, Bun.zstdCompressSync(Buffer.from(JSON.stringify(doc)), { level: 3 }));
      renameSync(tmp, this.file(etag));
    } catch {
      // A cache that cannot be written costs the next rename an extraction, nothing else.
    }
  }

  /** Removes the entries of content no longer in the vault. */
  prune(keep: ReadonlySet<string>): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const etag = name.split(".")[0] ?? "";
      if (!keep.has(etag) || !name.endsWith(`.v${EXTRACTOR_VERSION}.zst`)) rmSync(join(this.dir, name), { force: true });
    }
  }

  private file(etag: string): string {
    return join(this.dir, `${etag}.v${EXTRACTOR_VERSION}.zst`);
  }
}
