/**
 * The extraction worker: turns one PDF or DOCX into text at a time (pdf-text.ts, docx-text.ts)
 * for document-extract.ts, which waits for it with a deadline and ends it when the deadline
 * passes. Its heap is checked between pages. An entrypoint of its own in the compiled binary
 * (scripts/build.ts).
 */
import { fullGC } from "bun:jsc";
import type { ExtractInit, ExtractRequest, ExtractResponse } from "./document-extract.ts";
import { failed } from "./document-types.ts";
import { docxText } from "./docx-text.ts";
import { pdfText } from "./pdf-text.ts";

declare const self: Worker;

const GC_ABOVE_BYTES = 64 * 1024 * 1024;

let channel: ExtractInit | null = null;

self.onmessage = async (event: MessageEvent<ExtractRequest | ExtractInit>) => {
  if ("port" in event.data) {
    channel = event.data;
    return;
  }
  if (!channel) return;
  const { port, signal } = channel;
  const { seq, bytes, format, limits } = event.data;
  let answer: ExtractResponse;
  try {
    // This thread's heap (heapStats() would count every object: milliseconds a page).
    const overBudget = () => process.memoryUsage().heapUsed > limits.maxHeapBytes;
    const document = format === "pdf" ? await pdfText(bytes, limits, overBudget) : docxText(bytes, limits);
    answer = { seq, document };
  } catch (err) {
    answer = { seq, document: failed(format, "malformed", `its text could not be extracted (${err instanceof Error ? err.name : "error"})`) };
  }
  port.postMessage(answer);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
  // A large document's parse leaves fonts, streams and pages behind: collected now, the next one
  // starts from a small heap. Not after every document: a full collection costs more than a small PDF's parse.
  if (process.memoryUsage().heapUsed > GC_ABOVE_BYTES) fullGC();
};
