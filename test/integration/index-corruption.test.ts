import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, copyFileSync, existsSync, openSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { runChecks } from "../../src/cli/doctor-checks.ts";
import { refreshIndex } from "../../src/cli/refresh.ts";
import { CORRUPT_INDEX_FIX, IndxError } from "../../src/core/errors.ts";
import { vaultReindex, vaultStatus } from "../../src/maintenance/ops.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The corruption suite (docs/decisions.md, "A damaged index"): whatever happens to index.db, a
 * read answers or says index_corrupt with the fix, `doctor` reports the damage, and
 * `indx vault index --rebuild` recovers. Never `internal`.
 */
const NOTES = 200;
const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

let sb: Sandbox;
let indexPath: string;
let goodCopy: string;

beforeAll(async () => {
  sb = sandbox();
  for (let i = 0; i < NOTES; i++)
    sb.write(
      `f${i % 7}/Note ${i}.md`,
      `---\ntags: [t${i % 9}]\nrank: ${i}\n---\n# Note ${i}\n\nzebra${i} walks with [[Note ${(i + 1) % NOTES}]] #topic${i % 5}\n\n${"Plain words to fill the pages of the index. ".repeat(20)}\n`,
    );
  const ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  ctx.close();
  indexPath = join(sb.dataDir, "index.db");
  goodCopy = join(sb.dir, "good.db");
  copyFileSync(indexPath, goodCopy);
});
afterAll(() => sb.cleanup());

/** A tiny seeded generator (mulberry32): the same offsets and bytes on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function restoreGood(): void {
  for (const f of readdirSync(sb.dataDir)) if (f.startsWith("index.db")) rmSync(join(sb.dataDir, f), { force: true });
  copyFileSync(goodCopy, indexPath);
}

/** 8 KiB of random bytes written over index.db at `offset`, as a bad disk sector or a torn sync would. */
function garble(offset: number, random: () => number): void {
  const bytes = new Uint8Array(8192);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  const fd = openSync(indexPath, "r+");
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

function expectTypedCorrupt(err: unknown): void {
  expect(err).toBeInstanceOf(IndxError);
  const e = err as IndxError;
  expect(e.code).toBe("index_corrupt");
  expect(e.httpStatus).toBe(503);
  expect(e.exitCode).toBe(6);
  expect(e.message).toContain(CORRUPT_INDEX_FIX);
  expect(e.details?.fix).toBe(CORRUPT_INDEX_FIX);
}

/** What a CLI read does: refresh, then search. Either it answers or it is index_corrupt with the fix. */
async function readOrTypedError(): Promise<"answered" | "index_corrupt"> {
  const ctx = sb.context();
  try {
    await refreshIndex(ctx);
    await invoke(vaultSearch, ctx, { q: "zebra7" });
    return "answered";
  } catch (err) {
    expectTypedCorrupt(err);
    return "index_corrupt";
  } finally {
    ctx.close();
  }
}

async function doctorIndexCheck() {
  const checks = await runChecks({ vault: sb.vault, data_dir: sb.dataDir }, { full: true });
  return checks.find((c) => c.name === "index");
}

async function expectRebuildRecovers(): Promise<void> {
  const ctx = sb.context();
  try {
    const report = await invoke(vaultReindex, ctx, { rebuild: true });
    expect(report.added).toBe(NOTES);
    const found = await invoke(vaultSearch, ctx, { q: "zebra7" });
    expect(found.results.map((r) => r.path)).toContain("f0/Note 7.md");
    const status = await invoke(vaultStatus, ctx, { probe: false });
    expect(status.index.state).toBe("ready");
  } finally {
    ctx.close();
  }
  expect((await doctorIndexCheck())?.status).toBe("ok");
}

/** The status of a damaged index never fails: it says "corrupt" with the fix, or "ready" when the damage is not on its way. */
async function statusNeverFails(): Promise<void> {
  const ctx = sb.context();
  try {
    const status = await invoke(vaultStatus, ctx, { probe: false });
    expect(["ready", "corrupt"]).toContain(status.index.state);
    if (status.index.state === "corrupt") expect(status.index.fix).toBe(CORRUPT_INDEX_FIX);
  } finally {
    ctx.close();
  }
}

describe("random bytes over index.db", () => {
  const random = seeded(29);
  const size = () => statSync(goodCopy).size;
  // The header page first, then nine offsets anywhere in the file.
  const offsets = () => [0, ...Array.from({ length: 9 }, () => Math.floor(random() * (size() - 8192)))];

  test("each of 10 seeded offsets: a read answers or says index_corrupt with the fix; doctor finds it; --rebuild recovers and sets the file aside", async () => {
    const outcomes: string[] = [];
    for (const offset of offsets()) {
      restoreGood();
      garble(offset, random);
      const read = await readOrTypedError();
      await statusNeverFails();
      const check = await doctorIndexCheck();
      expect(check?.status, `offset ${offset}`).toBe("fail");
      expect(check?.fix).toBe(CORRUPT_INDEX_FIX);
      await expectRebuildRecovers();
      expect(
        readdirSync(sb.dataDir).some((f) => f.startsWith("index.db.corrupt-")),
        `offset ${offset}`,
      ).toBe(true);
      outcomes.push(`${offset}:${read}`);
      for (const f of readdirSync(sb.dataDir)) if (f.startsWith("index.db.corrupt-")) rmSync(join(sb.dataDir, f));
    }
    expect(outcomes).toHaveLength(10);
  }, 120_000);
});

describe("a file that is no longer an index", () => {
  test("truncated to half: index_corrupt with the fix, doctor fails it, --rebuild recovers", async () => {
    restoreGood();
    truncateSync(indexPath, Math.floor(statSync(indexPath).size / 2));
    await readOrTypedError();
    await statusNeverFails();
    expect((await doctorIndexCheck())?.status).toBe("fail");
    await expectRebuildRecovers();
  });

  test("zero-length: index_corrupt with the fix (not `internal`), doctor fails it, --rebuild recovers", async () => {
    restoreGood();
    writeFileSync(indexPath, "");
    expect(await readOrTypedError()).toBe("index_corrupt");
    const check = await doctorIndexCheck();
    expect(check?.status).toBe("fail");
    expect(check?.fix).toBe(CORRUPT_INDEX_FIX);
    await expectRebuildRecovers();
  });

  test("a garbled header over the CLI: search and vault status exit 6 naming the fix, doctor exits 1 naming it, --rebuild exits 0", () => {
    restoreGood();
    garble(0, seeded(1));
    const cli = (args: string[]) => Bun.spawnSync([process.execPath, MAIN, ...args], { env: sb.env, stdout: "pipe", stderr: "pipe" });
    const search = cli(["search", "zebra7"]);
    expect(search.exitCode).toBe(6);
    expect(search.stderr.toString()).toContain("index_corrupt");
    expect(search.stderr.toString()).toContain(CORRUPT_INDEX_FIX);
    const status = cli(["vault", "status", "--json"]);
    expect(status.exitCode).toBe(0);
    expect(JSON.parse(status.stdout.toString()).index.state).toBe("corrupt");
    const doctor = cli(["doctor", "--json"]);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout.toString()).toContain(CORRUPT_INDEX_FIX);
    const rebuild = cli(["vault", "index", "--rebuild"]);
    expect(rebuild.exitCode).toBe(0);
    expect(JSON.parse(rebuild.stdout.toString()).rebuilt).toContain("set aside as index.db.corrupt-");
    expect(cli(["search", "zebra7"]).exitCode).toBe(0);
  }, 60_000);
});

describe("a data folder that is a file", () => {
  test("reads and index runs say data_dir_unusable with the fix (no absolute path); doctor fails it; once moved away --rebuild recovers", async () => {
    rmSync(sb.dataDir, { recursive: true, force: true });
    writeFileSync(sb.dataDir, "not a folder");
    const ctx = sb.context();
    try {
      for (const run of [() => invoke(vaultSearch, ctx, { q: "zebra7" }), () => invoke(vaultReindex, ctx, { rebuild: true })]) {
        const err = await run().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(IndxError);
        const e = err as IndxError;
        expect(e.code).toBe("data_dir_unusable");
        expect(e.exitCode).toBe(6);
        expect(e.message).toContain("is a file, not a folder");
        expect(e.message).toContain("data_dir");
        expect(e.message).not.toContain(sb.dir);
      }
    } finally {
      ctx.close();
    }
    const checks = await runChecks({ vault: sb.vault, data_dir: sb.dataDir });
    const dataDir = checks.find((c) => c.name === "data_dir");
    expect(dataDir?.status).toBe("fail");
    expect(dataDir?.message).toContain("is a file");
    expect(dataDir?.fix).not.toContain("chmod");
    rmSync(sb.dataDir);
    await expectRebuildRecovers();
    expect(existsSync(indexPath)).toBe(true);
  });
});
