import { afterEach, expect, test } from "bun:test";
import { runIndex } from "../../src/index/build/indexer.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * A build's batches are bounded in bytes, not only in files (docs/decisions.md, "A build's
 * memory follows its batches"): both threads hold a batch at once, so larger notes make fewer
 * notes a batch.
 */

let sb: Sandbox | null = null;
afterEach(() => sb?.cleanup());

/** The number of files each batch of a build took, from its progress reports. */
function batchSizes(files: Record<string, string>, rowsWorker: boolean): number[] {
  sb = sandbox(files);
  const steps: number[] = [];
  let last = 0;
  runIndex(sb.context().vault, {
    rowsWorker,
    onProgress: (done) => {
      if (done > last) steps.push(done - last);
      last = done;
    },
  });
  return steps;
}

const notes = (count: number, bytes: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`n/Note ${i}.md`, `# Note ${i}\n\n${"word ".repeat(bytes / 5)}\n`]));

test.each([false, true])(
  "a batch ends at 512 KiB of files to read (30 KB notes: 18 a batch), or at 250 files (rows worker: %p)",
  (rowsWorker) => {
    const large = batchSizes(notes(120, 30_000), rowsWorker);
    expect(Math.max(...large)).toBe(18);
    expect(large.reduce((a, b) => a + b, 0)).toBe(120);
    sb?.cleanup();
    const small = batchSizes(notes(600, 500), rowsWorker);
    expect(Math.max(...small)).toBe(250);
  },
  30_000,
);

test("notes of 5 KB go about a hundred to a batch; attachments, never read, do not count", () => {
  const files = notes(300, 5_000);
  for (let i = 0; i < 300; i++) files[`a/Image ${i}.png`] = "x".repeat(50_000);
  const sizes = batchSizes(files, false);
  expect(sizes).toContain(105);
  // Counted, 50 KB attachments would go 10 to a batch.
  expect(Math.max(...sizes)).toBe(250);
}, 30_000);
