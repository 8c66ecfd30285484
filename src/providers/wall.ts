import { IndxError } from "../core/errors.ts";
import type { IndexStore } from "../index/storage/store.ts";
import { AiGlobs } from "./globs.ts";
import type { ChatProvider, ChatRequest, EmbeddingProvider } from "./types.ts";

/**
 * The deny wall (docs/contracts.md, "Deny globs are a wall"): the one boundary every outbound model
 * request passes — chat, embeddings, rerank, vocabularies — whichever operation built it.
 *
 * Operations keep denied notes out at their source (scopes, retrieval, rerank candidates, the
 * embedding job, tag vocabularies). The wall does not trust them: before a byte leaves, it reads
 * the request itself and refuses it when
 * - a `<passage path="…">` names a note the globs deny (the provenance every grounded prompt
 *   carries), or
 * - the text carries a run of words found only in denied notes (a fingerprint of every chunk no
 *   allowed note shares), however it got there: a hit, a scope, a link hop, a transclusion.
 * A refused request is never sent: `ai_denied_content` (422), nothing leaves the machine.
 */

/** Words per fingerprint window: long enough that allowed prose rarely repeats one by chance. */
const WINDOW = 6;
/** A denied chunk shorter than this many words is fingerprinted whole (a one-line secret is still a secret). */
const MIN_WORDS = 2;
/** A whole-chunk fingerprint of fewer characters would match ordinary words: such chunks are left to the sources. */
const MIN_CHARS = 12;

/**
 * Chunks fingerprinted at most (about 1.2 M windows, ~50 MB): an allow list that leaves most of a
 * large vault out would otherwise fingerprint the whole vault on every change. Past it, the wall
 * keeps its path checks and the sources their filters (docs/decisions.md, "The deny wall").
 */
const MAX_FINGERPRINT_CHUNKS = 4_000;
/** Chunks read and fingerprinted between two turns of the event loop (a few ms of work). */
const BUILD_SLICE = 50;

const WORD = /[\p{L}\p{N}]+/gu;
/** Zero-width characters a note (or a lying model) could slip between letters. */
const INVISIBLE = /[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]/g;

function words(text: string): string[] {
  return text.normalize("NFKC").replace(INVISIBLE, "").toLowerCase().match(WORD) ?? [];
}

/**
 * Each word as two 32-bit hashes, so a window's key is a few integer multiplies, not a string
 * and a hash of it: a prompt of 10k tokens is read in about a millisecond.
 */
function wordHashes(ws: readonly string[]): { a: Int32Array; b: Int32Array } {
  const a = new Int32Array(ws.length);
  const b = new Int32Array(ws.length);
  ws.forEach((w, i) => {
    a[i] = Bun.hash.xxHash32(w, 0x9e3779b1);
    b[i] = Bun.hash.xxHash32(w, 0x85ebca6b);
  });
  return { a, b };
}

/** A window's key, written in place by windowKey: both lanes are 32-bit integers (Math.imul and ^ return int32). */
interface WindowKey {
  x: number;
  y: number;
}

/** A window's key: two 32-bit lanes over its words' hashes (a collision among a million windows is a one-in-a-billion event). */
function windowKey(h: { a: Int32Array; b: Int32Array }, from: number, size: number, out: WindowKey): void {
  let x = 0x811c9dc5 ^ size;
  let y = 0x27d4eb2f ^ size;
  for (let i = from; i < from + size; i++) {
    x = Math.imul(x ^ (h.a[i] ?? 0), 0x01000193);
    x ^= x >>> 15;
    y = Math.imul(y ^ (h.b[i] ?? 0), 0x5bd1e995);
    y ^= y >>> 13;
  }
  out.x = x;
  out.y = y;
}

/**
 * A set of window keys in flat integer arrays (open addressing): a JavaScript Set of 53-bit
 * numbers boxes each one, and reading a long prompt is mostly lookups.
 */
class KeySet {
  private xs = new Int32Array(1024);
  private ys = new Int32Array(1024);
  private used = new Uint8Array(1024);
  size = 0;

  add(x: number, y: number): void {
    if ((this.size + 1) * 2 > this.used.length) this.grow();
    if (this.insert(x, y)) this.size++;
  }

  has(x: number, y: number): boolean {
    const mask = this.used.length - 1;
    for (let i = (x ^ Math.imul(y, 0x9e3779b1)) & mask; this.used[i]; i = (i + 1) & mask) if (this.xs[i] === x && this.ys[i] === y) return true;
    return false;
  }

  private insert(x: number, y: number): boolean {
    const mask = this.used.length - 1;
    let i = (x ^ Math.imul(y, 0x9e3779b1)) & mask;
    for (; this.used[i]; i = (i + 1) & mask) if (this.xs[i] === x && this.ys[i] === y) return false;
    this.used[i] = 1;
    this.xs[i] = x;
    this.ys[i] = y;
    return true;
  }

  private grow(): void {
    const { xs, ys, used } = this;
    this.xs = new Int32Array(used.length * 2);
    this.ys = new Int32Array(used.length * 2);
    this.used = new Uint8Array(used.length * 2);
    for (let i = 0; i < used.length; i++) if (used[i]) this.insert(xs[i] ?? 0, ys[i] ?? 0);
  }
}

const PASSAGE_PATH = /<passage\b[^>]*?\bpath="([^"]*)"/g;
const unattr = (s: string) => s.replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&amp;", "&");

export class DenyWall {
  private readonly keys = new KeySet();
  private readonly key: WindowKey = { x: 0, y: 0 };
  /** Window sizes in the fingerprint (WINDOW, and the lengths of short chunks fingerprinted whole). */
  private readonly sizes = new Set<number>();

  /** Windows met in a request and already looked up: does an allowed note have the same words? */
  private readonly shared = new Map<number, boolean>();

  private constructor(
    private readonly globs: AiGlobs,
    /** Notes the globs deny (vault-relative paths). */
    readonly denied: ReadonlySet<string>,
    /** The same notes by file id (valid for the index the wall was built from). */
    readonly deniedIds: ReadonlySet<number>,
    /** Reads the content hashes of chunks only denied notes have (one query, on first use). */
    private readonly exclusive: () => string[] = () => [],
    /** Reads the texts of some of those chunks (null: nothing to fingerprint). */
    private readonly texts: ((hashes: string[]) => string[]) | null = null,
    /**
     * Whether an allowed note has these words in a row (the full-text index): a window a denied
     * note shares with an allowed one — a template's headings, a quote — is that note's text too.
     */
    private readonly allowedHas: (words: readonly string[]) => boolean = () => false,
  ) {}

  private building: Promise<void> | null = null;
  private hashes: ReadonlySet<string> | null = null;

  /** Content hashes of chunks only denied notes have: never embedded, their vectors dropped. */
  get deniedHashes(): ReadonlySet<string> {
    return (this.hashes ??= new Set(this.exclusive()));
  }

  /**
   * The fingerprint, built on first use a slice of chunks at a time with the event loop free in
   * between: a wall over thousands of denied chunks takes a second to build, and the server
   * keeps answering meanwhile (docs/decisions.md, "The deny wall").
   */
  ready(): Promise<void> {
    return (this.building ??= this.build());
  }

  private async build(): Promise<void> {
    if (!this.texts) return;
    const hashes = [...this.deniedHashes].slice(0, MAX_FINGERPRINT_CHUNKS);
    for (let from = 0; from < hashes.length; from += BUILD_SLICE) {
      await Bun.sleep(0);
      for (const text of this.texts(hashes.slice(from, from + BUILD_SLICE))) this.fingerprintText(text);
    }
  }

  private fingerprintText(text: string): void {
    const all = words(text);
    this.fingerprint(all);
    // Short lines on their own too: a one-line secret inside a long chunk.
    if (all.length > WINDOW)
      for (const line of text.split("\n")) {
        const ws = words(line);
        if (ws.length < WINDOW) this.fingerprint(ws);
      }
  }

  private fingerprint(ws: readonly string[]): void {
    if (ws.length < MIN_WORDS) return;
    if (ws.length < WINDOW && ws.join(" ").length < MIN_CHARS) return;
    const h = wordHashes(ws);
    const k = this.key;
    if (ws.length < WINDOW) {
      this.sizes.add(ws.length);
      windowKey(h, 0, ws.length, k);
      this.keys.add(k.x, k.y);
      return;
    }
    this.sizes.add(WINDOW);
    for (let i = 0; i + WINDOW <= ws.length; i++) {
      windowKey(h, i, WINDOW, k);
      this.keys.add(k.x, k.y);
    }
  }

  /** A wall that denies nothing: no deny glob and no allow glob is set. */
  static open(globs: AiGlobs = new AiGlobs([], [])): DenyWall {
    return new DenyWall(globs, new Set(), new Set());
  }

  /**
   * The wall for the index as it is now: the notes the globs deny, and the text of every chunk
   * of theirs that no allowed note shares (shared text is an allowed note's text too).
   */
  static of(index: IndexStore, globs: AiGlobs): DenyWall {
    if (!globs.restricts) return DenyWall.open(globs);
    // Documents too: a PDF's pages are sections like a note's (docs/documents.md).
    const notes = index.files.withText();
    const denied = notes.filter((n) => !globs.allows(n.path));
    if (denied.length === 0) return DenyWall.open(globs);
    const deniedIds = denied.map((n) => n.id);
    const exclusive = () => index.chunks.hashesOnlyIn(deniedIds);
    const texts = (hashes: string[]) => index.chunks.embeddingInputs(hashes).map((r) => `${r.headingPath.join(" ")}\n${r.text}`);
    const allowedHas = (ws: readonly string[]) => {
      try {
        return index.fts.firstMatching(`"${ws.join(" ")}"`, { allowed: null, excluded: deniedIds }, 1).length > 0;
      } catch {
        return false;
      }
    };
    return new DenyWall(globs, new Set(denied.map((n) => n.path)), new Set(deniedIds), exclusive, texts, allowedHas);
  }

  allows(path: string): boolean {
    return this.globs.allows(path);
  }

  /**
   * Why this text may not leave, or null when it may (after ready()). The reason names no note
   * and quotes nothing. `caller`: what the caller typed, found in the text; windows inside it are the
   * caller's words, not a note's (a question may well repeat a denied note's phrasing).
   */
  reason(text: string, caller: readonly string[] = []): string | null {
    if (this.denied.size === 0) return null;
    PASSAGE_PATH.lastIndex = 0;
    for (let m = PASSAGE_PATH.exec(text); m; m = PASSAGE_PATH.exec(text))
      if (!this.globs.allows(unattr(m[1] ?? ""))) return "a passage of a note the AI deny globs exclude";
    if (this.keys.size === 0) return null;
    for (const run of unmasked(words(text), caller)) {
      const h = wordHashes(run);
      for (const size of this.sizes)
        for (let i = 0; i + size <= run.length; i++) {
          windowKey(h, i, size, this.key);
          if (!this.keys.has(this.key.x, this.key.y)) continue;
          const key = (this.key.x >>> 0) * 0x200000 + (this.key.y >>> 11);
          let shared = this.shared.get(key);
          if (shared === undefined) this.shared.set(key, (shared = this.allowedHas(run.slice(i, i + size))));
          if (!shared) return "text found only in notes the AI deny globs exclude";
        }
    }
    return null;
  }

  /** Throws ai_denied_content when any of the texts may not leave; `what` names the request (chat, embeddings, rerank). */
  async guard(texts: readonly string[], what: string, caller: readonly string[] = []): Promise<void> {
    if (this.denied.size === 0) return;
    await this.ready();
    for (const text of texts) {
      const why = this.reason(text, caller);
      if (why)
        throw new IndxError("ai_denied_content", `The ${what} request was not sent: it carried ${why} (ai.deny_globs).`, {
          request: what,
        });
    }
  }
}

/** The runs of words left once every occurrence of the caller's texts is cut out. */
function unmasked(ws: string[], caller: readonly string[]): string[][] {
  if (caller.length === 0) return [ws];
  const masked = new Uint8Array(ws.length);
  for (const c of caller) {
    const cw = words(c);
    if (cw.length === 0) continue;
    for (let i = 0; i + cw.length <= ws.length; i++) {
      let j = 0;
      while (j < cw.length && ws[i + j] === cw[j]) j++;
      if (j === cw.length) masked.fill(1, i, i + cw.length);
    }
  }
  const runs: string[][] = [];
  let run: string[] = [];
  ws.forEach((w, i) => {
    if (masked[i]) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push(w);
  });
  if (run.length) runs.push(run);
  return runs;
}

/** Where a provider learns the wall in force when it sends (the index and the globs change under a long-running process). */
export type WallSource = () => DenyWall;

/** Every text of a chat request: what the provider would send. */
export function chatTexts(req: ChatRequest): string[] {
  return [req.system, ...req.messages.map((m) => m.content), ...(req.jsonSchema ? [JSON.stringify(req.jsonSchema)] : [])];
}

/** A chat provider that passes the wall before every request. */
export function walledChat(inner: ChatProvider, wall: WallSource, what = "chat"): ChatProvider {
  return {
    provider: inner.provider,
    model: inner.model,
    generate: async (req) => {
      await wall().guard(chatTexts(req), what, req.callerText);
      return inner.generate(req);
    },
  };
}

/** An embeddings provider that passes the wall before every batch. */
export function walledEmbeddings(inner: EmbeddingProvider, wall: WallSource): EmbeddingProvider {
  return {
    provider: inner.provider,
    model: inner.model,
    embed: async (texts, signal, origin) => {
      await wall().guard(texts, "embeddings", origin === "caller" ? texts : []);
      return inner.embed(texts, signal);
    },
  };
}
