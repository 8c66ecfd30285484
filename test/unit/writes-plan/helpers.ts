import { expect } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { etagOf } from "../../../src/core/hash.ts";
import { parseNote } from "../../../src/markdown/parse.ts";
import type { FileEdit } from "../../../src/writes/edit.ts";

/** Hash of every file under the vault, `.obsidian/` included, keyed by vault path. */
export function hashTree(root: string, rel = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) for (const [k, v] of hashTree(root, p)) out.set(k, v);
    else out.set(p, etagOf(readFileSync(join(root, p))));
  }
  return out;
}

/** What the caller's write pipeline does with a plan: check each etag, write the new text. */
export function applyEdits(root: string, edits: FileEdit[]): void {
  for (const e of edits) {
    const abs = join(root, e.path);
    expect(etagOf(readFileSync(abs))).toBe(e.etag);
    writeFileSync(abs, e.text);
  }
}

export function moveFile(root: string, from: string, to: string): void {
  mkdirSync(dirname(join(root, to)), { recursive: true });
  renameSync(join(root, from), join(root, to));
}

/** The text with every link token cut out: equal skeletons mean only link tokens changed. */
export function withoutLinks(text: string): string {
  let out = "";
  let at = 0;
  for (const l of [...parseNote(text).links].sort((a, b) => a.offset - b.offset)) {
    if (!text.startsWith(l.raw, l.offset)) continue; // a frontmatter link not found verbatim stays in
    out += `${text.slice(at, l.offset)}\u0000`;
    at = l.offset + l.raw.length;
  }
  return out + text.slice(at);
}

export function read(root: string, rel: string): string {
  return readFileSync(join(root, rel), "utf8");
}
