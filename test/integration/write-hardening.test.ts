import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { attachmentWrite } from "../../src/attachments/write-ops.ts";
import { loadConfig } from "../../src/config/load.ts";
import { runIndex } from "../../src/index/build/indexer.ts";
import { vaultConfigSet } from "../../src/maintenance/config-set-ops.ts";
import { noteList } from "../../src/notes/ops.ts";
import { noteReadMany } from "../../src/notes/read-many-ops.ts";
import { invoke, rejection } from "../support/ops.ts";
import { type Surfaces, startSurfaces } from "../support/surfaces.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Issue 29's hostile writes: a large upload, a name with a line break, a glob that climbs out of
 * the vault, a malformed ai.prices, and the temp files of a killed writer.
 */

const LIMIT = 8 * 1024 * 1024;
const MiB = 1024 * 1024;

let sb: Sandbox;
let s: Surfaces;

/** Bytes that are not all one value, so a decode that drops or shifts a chunk shows. */
function pattern(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + (i >> 10)) & 0xff;
  return out;
}

beforeAll(async () => {
  sb = sandbox({ "Projects/Alpha.md": "# Alpha\n", "Private/Secret.md": "# Secret\n" });
  sb.env.INDX_MAX_ATTACHMENT_BYTES = String(LIMIT);
  const ctx = sb.context();
  runIndex(ctx.vault);
  ctx.close();
  s = await startSurfaces(sb);
});

afterAll(async () => {
  await s?.close();
  sb?.cleanup();
});

describe("attachment uploads above 5 MiB, within the limit", () => {
  test("a 6 MiB upload as JSON base64 is saved byte for byte", async () => {
    const bytes = pattern(6 * MiB);
    const out = await invoke(attachmentWrite, s.ctx, { name: "big.png", data_base64: Buffer.from(bytes).toString("base64") });
    expect(out.size).toBe(bytes.length);
    expect(Buffer.compare(readFileSync(join(sb.vault, out.path)), Buffer.from(bytes))).toBe(0);
  });

  test("MIME-wrapped base64 (a line break every 76 characters) of 7 MiB is saved", async () => {
    const bytes = pattern(7 * MiB);
    const wrapped = Buffer.from(bytes).toString("base64").replace(/.{76}/g, "$&\r\n");
    const out = await invoke(attachmentWrite, s.ctx, { name: "wrapped.pdf", data_base64: wrapped });
    expect(Buffer.compare(readFileSync(join(sb.vault, out.path)), Buffer.from(bytes))).toBe(0);
  });

  test("REST: a 6 MiB raw body and a 6 MiB JSON body are both saved", async () => {
    const bytes = pattern(6 * MiB + 1);
    const raw = await s.rest("POST", "/v1/attachments?name=raw.jpg", bytes, { "content-type": "image/jpeg" });
    expect(raw.status).toBe(201);
    expect(raw.body.data.size).toBe(bytes.length);
    const json = await s.rest("POST", "/v1/attachments", { name: "json.jpg", data_base64: Buffer.from(bytes).toString("base64") });
    expect(json.status).toBe(201);
    expect(readFileSync(join(sb.vault, json.body.data.path)).length).toBe(bytes.length);
  });

  test("over the limit is payload_too_large naming the limit; broken base64 is validation_failed; neither writes", async () => {
    const over = await rejection(invoke(attachmentWrite, s.ctx, { name: "over.png", data_base64: Buffer.from(pattern(LIMIT + 1)).toString("base64") }));
    expect(over.code).toBe("payload_too_large");
    expect(over.details).toMatchObject({ size: LIMIT + 1, limit: LIMIT });
    const good = Buffer.from(pattern(6 * MiB)).toString("base64");
    for (const data of [`${good.slice(0, -4)}!!!!`, `${good}=`, `${good.slice(0, -1)}`, `AA==${good}`, "A===", "é"]) {
      const e = await rejection(invoke(attachmentWrite, s.ctx, { name: "bad.png", data_base64: data }));
      expect(e.code).toBe("validation_failed");
      expect(e.details?.field).toBe("data_base64");
    }
    expect(existsSync(join(sb.vault, "over.png"))).toBe(false);
    expect(existsSync(join(sb.vault, "bad.png"))).toBe(false);
  });
});

describe("attachment names with control characters", () => {
  test("CR, LF, tab, NUL, DEL, NEL and U+2028 are refused with a typed error on every surface; nothing is written", async () => {
    for (const name of ["a\r\nb.png", "a\nb.png", "x\r.png", "tab\there.png", "nul\u0000.png", "del\u007f.png", "nel\u0085.png", "ls\u2028.png"]) {
      const e = await rejection(invoke(attachmentWrite, s.ctx, { name, data_base64: "AAAA" }));
      expect({ name, code: e.code, reason: e.details?.reason }).toEqual({ name, code: "validation_failed", reason: "control_character" });
    }
    const rest = await s.rest("POST", `/v1/attachments?name=${encodeURIComponent("evil\r\nSet-Cookie: x.png")}`, new Uint8Array([1, 2, 3]), {
      "content-type": "image/png",
    });
    expect(rest.status).toBe(400);
    expect(rest.body.error.details).toMatchObject({ field: "name", reason: "control_character" });
    const client = await s.mcp();
    const mcp = await client.callTool({ name: "attachment_write", arguments: { name: "line\nbreak.png", data_base64: "AAAA" } });
    expect(mcp.isError).toBe(true);
    expect(readdirSync(sb.vault).filter((n) => /[\r\n\t]/.test(n))).toEqual([]);
  });
});

describe("globs that climb out of the vault", () => {
  const OUTSIDE = ["../**", "../Private/*.md", "Projects/../../**", "{..,x}/**", "~/Notes/**", "//etc/**", "C:/Notes/**"];

  test("note_list and note_read_many refuse them with a typed error instead of matching nothing", async () => {
    for (const glob of OUTSIDE) {
      const list = await rejection(invoke(noteList, s.ctx, { path_glob: glob }));
      expect({ glob, code: list.code, reason: list.details?.reason }).toEqual({ glob, code: "validation_failed", reason: "outside_vault" });
      const many = await rejection(invoke(noteReadMany, s.ctx, { glob }));
      expect({ glob, code: many.code }).toEqual({ glob, code: "validation_failed" });
    }
    // A name that only starts with two dots is a name, not a climb.
    expect((await invoke(noteList, s.ctx, { path_glob: "..notes/**" })).notes).toEqual([]);
    expect((await invoke(noteList, s.ctx, { path_glob: "/Projects/**" })).notes.map((n) => n.path)).toEqual(["Projects/Alpha.md"]);
  });

  test("REST: GET /v1/notes with such a path_glob is 400", async () => {
    const r = await s.rest("GET", `/v1/notes?path_glob=${encodeURIComponent("../**")}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("validation_failed");
  });

  test("config: ai.deny_globs, ai.allow_globs and index.exclude refuse them when set and when read", async () => {
    const before = existsSync(loadConfig({ env: sb.env }).path) ? readFileSync(loadConfig({ env: sb.env }).path, "utf8") : "";
    for (const key of ["ai.deny_globs", "ai.allow_globs", "index.exclude"])
      for (const glob of ["../Private/**", "~/x/**"]) {
        const e = await rejection(invoke(vaultConfigSet, s.ctx, { key, value: [glob] }));
        expect({ key, glob, code: e.code, reason: e.details?.reason }).toEqual({ key, glob, code: "validation_failed", reason: "invalid_item" });
      }
    const after = existsSync(loadConfig({ env: sb.env }).path) ? readFileSync(loadConfig({ env: sb.env }).path, "utf8") : "";
    expect(after).toBe(before);
    const e = await rejection(Promise.resolve().then(() => loadConfig({ env: { ...sb.env, INDX_AI_DENY_GLOBS: "../Private/**" } })));
    expect(e.code).toBe("validation_failed");
    expect(e.message).toContain("ai.deny_globs");
    expect((await invoke(vaultConfigSet, s.ctx, { key: "ai.deny_globs", value: ["Private/**"] })).value).toEqual(["Private/**"]);
  });
});

describe("vault_config_set checks ai.prices against its form", () => {
  test("a malformed entry is refused and the file is left as it was; a good one is stored", async () => {
    const path = loadConfig({ env: sb.env }).path;
    const before = existsSync(path) ? readFileSync(path, "utf8") : "";
    for (const value of [["gpt-x"], ["gpt-x=cheap"], ["gpt-x=1/"], ["=1/2"], ["gpt-x=1/2", "broken"], "gpt-x=-1/2"]) {
      const e = await rejection(invoke(vaultConfigSet, s.ctx, { key: "ai.prices", value }));
      expect({ value, code: e.code, key: e.details?.key, reason: e.details?.reason }).toEqual({
        value,
        code: "validation_failed",
        key: "ai.prices",
        reason: "invalid_item",
      });
    }
    expect(existsSync(path) ? readFileSync(path, "utf8") : "").toBe(before);
    const ok = await invoke(vaultConfigSet, s.ctx, { key: "ai.prices", value: ["my-model=0.5/1.5"] });
    expect(ok.value).toEqual(["my-model=0.5/1.5"]);
    const cli = await s.cli(["config", "set", "ai.prices", "my-model=lots", "--json"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("ai.prices");
  });
});

describe("a broken value in the file is not a dead end", () => {
  test("every command names the key; `config set` of that key still runs and fixes it", () => {
    const t = sandbox({ "A.md": "# A\n" });
    try {
      const path = loadConfig({ env: t.env }).path;
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, '[ai]\nprices = ["my-model=cheap"]\n');
      const cli = (args: string[]) => {
        const p = Bun.spawnSync(["bun", `${import.meta.dir}/../../src/main.ts`, ...args], { env: t.env, stdout: "pipe", stderr: "pipe" });
        return { code: p.exitCode, stderr: p.stderr.toString() };
      };
      const broken = cli(["search", "a", "--json"]);
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain("ai.prices");
      expect(cli(["config", "set", "ai.prices", "my-model=0.5/1.5", "--json"]).code).toBe(0);
      expect(cli(["config", "get", "ai.prices", "--json"]).code).toBe(0);
      writeFileSync(path, '[ai]\nprices = ["my-model=cheap"]\n');
      expect(cli(["config", "set", "ai.prices", "", "--json"]).code).toBe(0);
      expect(readFileSync(path, "utf8")).not.toContain("cheap");
    } finally {
      t.cleanup();
    }
  });
});

describe("other structured keys are checked when set", () => {
  test("server.allowed_hosts takes host names only: a scheme, port or path is refused", async () => {
    for (const bad of ["https://notes.example", "notes.example:8080", "notes.example/x", "a b"]) {
      const cli = await s.cli(["config", "set", "server.allowed_hosts", bad, "--json"]);
      expect({ bad, code: cli.code }).toEqual({ bad, code: 2 });
      expect(cli.stderr).toContain("server.allowed_hosts");
    }
    const ok = await s.cli(["config", "set", "server.allowed_hosts", "notes.example,[::1]", "--json"]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).value).toEqual(["notes.example", "[::1]"]);
  });
});

describe("temp files of killed writes", () => {
  test("start-up (writer.recover) sweeps stale temp files from every folder, keeping fresh ones and hidden folders alone", async () => {
    const t = sandbox({ "A/B/Note.md": "# Note\n", "Top.md": "# Top\n" });
    try {
      const stale = ["A/B/.indx-tmp-Note.md-deadbeef0000", ".indx-tmp-Top.md-0000deadbeef", "A/.indx-tmp-x.png-00aa00aa00aa"];
      const fresh = "A/B/.indx-tmp-Note.md-0123456789ab";
      const hidden = ".obsidian/.indx-tmp-app.json-aaaaaaaaaaaa";
      mkdirSync(join(t.vault, ".obsidian"), { recursive: true });
      const old = new Date(Date.now() - 5 * 60_000);
      for (const p of [...stale, fresh, hidden]) writeFileSync(join(t.vault, p), "torn");
      for (const p of [...stale, hidden]) utimesSync(join(t.vault, p), old, old);
      const ctx = t.context();
      try {
        await ctx.writer.recover();
      } finally {
        ctx.close();
      }
      for (const p of stale) expect({ p, exists: existsSync(join(t.vault, p)) }).toEqual({ p, exists: false });
      expect(existsSync(join(t.vault, fresh))).toBe(true);
      expect(existsSync(join(t.vault, hidden))).toBe(true);
      expect(readFileSync(join(t.vault, "A/B/Note.md"), "utf8")).toBe("# Note\n");
    } finally {
      t.cleanup();
    }
  });
});

describe("attachment_write's note", () => {
  test("a chunk id or a file that is not a note is path_invalid, a declared code, on every surface; nothing is written", async () => {
    for (const note of ["Projects/Alpha.md#0", "Projects/Alpha.md#3", "Projects/Board.canvas"]) {
      const e = await rejection(invoke(attachmentWrite, s.ctx, { name: "for-chunk.png", data_base64: "AAAA", note }));
      expect({ note, code: e.code, field: e.details?.field }).toEqual({ note, code: "path_invalid", field: "note" });
    }
    const rest = await s.rest("POST", "/v1/attachments", { name: "for-chunk.png", data_base64: "AAAA", note: "Projects/Alpha.md#0" });
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe("path_invalid");
    expect(
      readdirSync(sb.vault, { recursive: true })
        .map(String)
        .filter((n) => n.includes("for-chunk")),
    ).toEqual([]);
  });
});
