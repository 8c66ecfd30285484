#!/usr/bin/env bun
/**
 * PDF and DOCX text in the index (docs/documents.md), on dist/indx (BENCH_BIN for another):
 * - documents.extract: pages per second extracted, in process, on the fixture PDFs (each read
 *   BENCH_ROUNDS times, default 5, by one extraction worker; no cache);
 * - documents.index: a vault of BENCH_PDFS PDFs (default 500, the fixtures copied with varied
 *   bytes so no two hash alike) built by `indx vault index`: pages indexed per second, and the
 *   index's size per MB of PDF (against the same vault with index.documents off);
 * - documents.binary: the binary's size, and BENCH_BEFORE_BIN's when given (a build of the
 *   commit before documents);
 * - documents.mixed: the full build of the generated BENCH_N-note vault (default 20,000) with
 *   the BENCH_PDFS PDFs mixed in, against the same vault without them; the build's peak RSS;
 * - documents.stall: `indx serve` on a vault, then the hostile documents
 *   (test/support/hostile-documents.ts) and 20 PDFs put in it, then the BENCH_PDFS PDFs put in
 *   the BENCH_N-note vault, each indexed by POST /v1/vault/reindex while /health is probed every
 *   10 ms: the longest gap between two answers and the server's peak RSS (VmHWM).
 * Build the binary first (`bun run build`). BENCH_PARTS=extract,index,binary,mixed,stall picks parts.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DocumentExtractor } from "../../src/index/build/document-extract.ts";
import { HOSTILE, writeHostileDocuments } from "../../test/support/hostile-documents.ts";
import { BIN as DEFAULT_BIN, emit, generatedVault, isolatedEnv, median, outDir, ROOT, requireShared, round } from "./common.ts";

const BIN = process.env.BENCH_BIN ?? DEFAULT_BIN;
const PARTS = new Set((process.env.BENCH_PARTS ?? "extract,index,binary,mixed,stall").split(","));
const PDFS = Number(process.env.BENCH_PDFS ?? 500);
const N = Number(process.env.BENCH_N ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const FIXTURES = join(ROOT, "fixtures", "documents", "pdfjs");
/** The fixture PDFs with text (the encrypted and the image-only one are the hostile suite's business). */
const TEXT_PDFS = readdirSync(FIXTURES).filter((f) => f.endsWith(".pdf") && !/encrypted|images_1bit/.test(f));

if (!existsSync(BIN)) {
  emit({ bench: "documents", skipped: `${BIN} missing: run bun run build` });
  process.exit(0);
}

const mb = (bytes: number) => bytes / (1024 * 1024);

/** Copies the fixture PDFs into `dir` until there are `count`, each with bytes of its own after %%EOF. */
function writePdfs(dir: string, count: number): { bytes: number } {
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const name = TEXT_PDFS[i % TEXT_PDFS.length] ?? "";
    const data = Buffer.concat([readFileSync(join(FIXTURES, name)), Buffer.from(`\n% copy ${i}\n`)]);
    writeFileSync(join(dir, `${name.replace(/\.pdf$/, "")}-${i}.pdf`), data);
    bytes += data.length;
  }
  return { bytes };
}

/** Runs `indx vault index --rebuild` with /usr/bin/time: wall ms, peak RSS (MB), the report. */
function timedBuild(env: Record<string, string>): { ms: number; peakRssMb: number | null; report: { warnings: unknown[] } } {
  rmSync(env.INDX_DATA_DIR ?? "", { recursive: true, force: true });
  const timeBin = existsSync("/usr/bin/time") ? ["/usr/bin/time", "-f", "%M"] : [];
  const started = performance.now();
  const p = Bun.spawnSync([...timeBin, BIN, "vault", "index", "--json"], { env, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - started;
  if (p.exitCode !== 0) throw new Error(`indx vault index failed: ${p.stderr.toString().slice(0, 500)}`);
  const kb = Number(p.stderr.toString().trim().split("\n").at(-1));
  return { ms, peakRssMb: Number.isFinite(kb) && timeBin.length ? round(kb / 1024, 1) : null, report: JSON.parse(p.stdout.toString()) };
}

function indexBytes(env: Record<string, string>): number {
  const dir = env.INDX_DATA_DIR ?? "";
  return readdirSync(dir)
    .filter((f) => f.startsWith("index"))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

if (PARTS.has("extract")) {
  const extractor = new DocumentExtractor({ maxPages: 2000, maxTextBytes: 64 << 20, timeoutMs: 60_000, maxHeapBytes: 768 << 20 });
  try {
    extractor.extract(readFileSync(join(FIXTURES, TEXT_PDFS[0] ?? "")), "pdf"); // the worker's start-up, not measured
    const rates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      let pages = 0;
      const started = performance.now();
      for (const name of TEXT_PDFS) pages += extractor.extract(new Uint8Array(readFileSync(join(FIXTURES, name))), "pdf").sections.length;
      rates.push(pages / ((performance.now() - started) / 1000));
    }
    emit({ bench: "documents.extract", files: TEXT_PDFS.length, rounds: ROUNDS, pages_per_s_median: round(median(rates), 1) });
  } finally {
    extractor.close();
  }
}

if (PARTS.has("index")) {
  const vault = join(outDir("documents"), "pdfs");
  rmSync(vault, { recursive: true, force: true });
  const { bytes } = writePdfs(vault, PDFS);
  const on = isolatedEnv("documents-on", vault);
  const off = { ...isolatedEnv("documents-off", vault), INDX_DOCUMENTS: "none" };
  const built = timedBuild(on);
  const pages = Number(
    Bun.spawnSync([BIN, "vault", "status", "--json"], { env: on })
      .stdout.toString()
      .match(/"chunks":\s*(\d+)/)?.[1] ?? 0,
  );
  const withText = indexBytes(on);
  timedBuild(off);
  const without = indexBytes(off);
  emit({
    bench: "documents.index",
    pdfs: PDFS,
    pdf_mb: round(mb(bytes), 2),
    pages,
    build_ms: Math.round(built.ms),
    pages_per_s: round(pages / (built.ms / 1000), 1),
    index_mb: round(mb(withText), 2),
    index_mb_without_text: round(mb(without), 2),
    index_mb_per_pdf_mb: round(mb(withText - without) / mb(bytes), 3),
    peak_rss_mb: built.peakRssMb,
  });
}

if (PARTS.has("binary")) {
  const before = process.env.BENCH_BEFORE_BIN;
  const size = statSync(BIN).size;
  const beforeSize = before && existsSync(before) ? statSync(before).size : null;
  emit({
    bench: "documents.binary",
    bytes: size,
    ...(beforeSize ? { before_bytes: beforeSize, delta_mb: round(mb(size - beforeSize), 2), ratio: round(size / beforeSize, 3) } : {}),
  });
}

/** The generated vault with the PDFs in a folder of their own, made once. */
function mixedVault(): string | null {
  if (!requireShared("documents.mixed")) return null;
  const notes = generatedVault(N, 42);
  const mixed = join(outDir("documents"), `mixed-${N}-${PDFS}`);
  if (!existsSync(join(mixed, "Papers"))) {
    rmSync(mixed, { recursive: true, force: true });
    cpSync(notes, mixed, { recursive: true });
    writePdfs(join(mixed, "Papers"), PDFS);
  }
  return mixed;
}

if (PARTS.has("mixed")) {
  const mixed = mixedVault();
  if (mixed) {
    const withDocs = timedBuild(isolatedEnv("documents-mixed", mixed));
    const notesOnly = timedBuild({ ...isolatedEnv("documents-mixed-off", mixed), INDX_DOCUMENTS: "none" });
    emit({
      bench: "documents.mixed",
      notes: N,
      pdfs: PDFS,
      build_ms: Math.round(withDocs.ms),
      build_ms_documents_off: Math.round(notesOnly.ms),
      ratio: round(withDocs.ms / notesOnly.ms, 2),
      peak_rss_mb: withDocs.peakRssMb,
      peak_rss_mb_documents_off: notesOnly.peakRssMb,
    });
  }
}

/**
 * Starts serve on `vault` as it is (serve builds its index before it listens), then lets `add`
 * put the documents in and asks for an index pass (POST /v1/vault/reindex, on the index worker),
 * probing /health every 10 ms until the pass answers.
 */
async function stallWhileIndexing(label: string, vault: string, add: () => void): Promise<void> {
  // BENCH_DOCUMENTS_OFF=1: the same pass with extraction off, the machine's own noise to compare with.
  const off = process.env.BENCH_DOCUMENTS_OFF === "1";
  const env: Record<string, string> = { ...isolatedEnv(`documents-stall-${label}`, vault), ...(off ? { INDX_DOCUMENTS: "none" } : {}) };
  rmSync(env.INDX_DATA_DIR ?? "", { recursive: true, force: true });
  const server = Bun.spawn([BIN, "serve", "--port", "0", "--no-watch"], { env: { ...env, INDX_RATE_LIMIT_PER_SECOND: "0" }, stdout: "ignore", stderr: "pipe" });
  let url = "";
  let seen = "";
  const reader = server.stderr.getReader();
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`indx serve did not start: ${seen}`);
    seen += new TextDecoder().decode(value);
    url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1] ?? "";
  }
  void reader.read().then(function drain(r): unknown {
    return r.done ? undefined : reader.read().then(drain);
  });
  const key = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env }).stdout.toString().trim();
  try {
    add();
    const started = performance.now();
    const rssBefore = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1] ?? Number.NaN);
    let longest = 0;
    let longestAt = 0;
    let probes = 0;
    let running = true;
    const prober = (async () => {
      let last = performance.now();
      while (running) {
        const r = await fetch(`${url}/health`);
        await r.arrayBuffer();
        const now = performance.now();
        if (now - last > longest) {
          longest = now - last;
          longestAt = now - started;
        }
        last = now;
        probes++;
        await Bun.sleep(10);
      }
    })();
    const r = await fetch(`${url}/v1/vault/reindex`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ embeddings: false }),
    });
    const body = (await r.json()) as { data?: { added?: number; warnings?: { path: string; message: string }[] } };
    const workMs = performance.now() - started;
    running = false;
    await prober;
    const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1] ?? Number.NaN);
    emit({
      bench: `documents.stall.${label}${off ? ".documents_off" : ""}`,
      added: body.data?.added,
      work_ms: Math.round(workMs),
      probes,
      longest_health_gap_ms: round(longest, 1),
      longest_gap_ended_at_ms: Math.round(longestAt),
      rss_before_mb: Number.isFinite(rssBefore) ? round(rssBefore / 1024, 1) : null,
      peak_rss_mb: Number.isFinite(hwmKb) ? round(hwmKb / 1024, 1) : null,
      ...(label === "hostile" ? { warnings: (body.data?.warnings ?? []).map((w) => `${w.path}: ${w.message}`) } : {}),
    });
  } finally {
    server.kill();
    await server.exited;
  }
}

if (PARTS.has("stall")) {
  const hostile = join(outDir("documents"), "hostile");
  rmSync(hostile, { recursive: true, force: true });
  mkdirSync(hostile, { recursive: true });
  writeFileSync(join(hostile, "Fine.md"), "# Fine\n\nAn ordinary note.\n");
  await stallWhileIndexing("hostile", hostile, () => {
    mkdirSync(join(hostile, "Hostile"), { recursive: true });
    writeHostileDocuments(hostile);
    writePdfs(join(hostile, "Papers"), 20);
    if (!Object.values(HOSTILE).every((p) => existsSync(join(hostile, p)))) throw new Error("a hostile file is missing");
  });
  const mixed = mixedVault();
  if (mixed) {
    // The notes are indexed when serve starts; the PDFs come in while it serves.
    const papers = join(mixed, "Papers");
    const aside = join(outDir("documents"), `papers-${PDFS}`);
    rmSync(aside, { recursive: true, force: true });
    cpSync(papers, aside, { recursive: true });
    rmSync(papers, { recursive: true, force: true });
    await stallWhileIndexing("mixed", mixed, () => cpSync(aside, papers, { recursive: true }));
  }
}
