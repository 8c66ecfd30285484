import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleName, MCPB_MANIFEST_VERSION, mcpbManifest, SERVER_JSON_SCHEMA, serverJson, sha256Of, zipStored } from "../../../scripts/release/mcpb.ts";
import { OPERATIONS } from "../../../src/app/registry.ts";

const INFO = {
  version: "1.2.3",
  repo: "indx/indx",
  description: "Index an Obsidian-style Markdown vault into SQLite and serve search, reads and safe edits over a CLI, REST and MCP.",
};
const TOOLS = OPERATIONS.filter((op) => !op.ai).map((op) => ({ name: op.name, description: op.description }));
const FAKE_BINARY = new TextEncoder().encode("#!/bin/sh\necho indx\n");

/** The entries of a ZIP archive, read from its central directory as an unzipper does. */
function entriesOf(zip: Uint8Array): { name: string; data: Uint8Array; mode: number }[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.length - 22;
  expect(view.getUint32(end, true)).toBe(0x06054b50);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const out: { name: string; data: Uint8Array; mode: number }[] = [];
  for (let i = 0; i < count; i++) {
    expect(view.getUint32(at, true)).toBe(0x02014b50);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const mode = view.getUint32(at + 38, true) >>> 16;
    const local = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength));
    const dataAt = local + 30 + view.getUint16(local + 26, true);
    const data = zip.subarray(dataAt, dataAt + size);
    expect(Bun.hash.crc32(data)).toBe(view.getUint32(at + 16, true));
    out.push({ name, data, mode: mode & 0o777 });
    at += 46 + nameLength;
  }
  return out;
}

function build() {
  const manifest = mcpbManifest(INFO, "linux-x64", TOOLS);
  const zip = zipStored([
    { name: "manifest.json", data: new TextEncoder().encode(JSON.stringify(manifest)) },
    { name: manifest.server.entry_point, data: FAKE_BINARY, mode: 0o755 },
  ]);
  return { manifest, zip, server: serverJson(INFO, [{ target: "linux-x64", sha256: sha256Of(zip) }]) };
}

describe("the .mcpb bundle", () => {
  test("is a ZIP holding manifest.json and the executable binary it starts", () => {
    const { zip } = build();
    const entries = entriesOf(zip);
    expect(entries.map((e) => e.name)).toEqual(["manifest.json", "server/indx"]);
    expect(entries[1]?.data).toEqual(FAKE_BINARY);
    expect(entries[1]?.mode).toBe(0o755);
    const unzip = Bun.which("unzip");
    if (unzip) {
      const dir = mkdtempSync(join(tmpdir(), "indx-mcpb-"));
      try {
        writeFileSync(join(dir, "b.mcpb"), zip);
        expect(Bun.spawnSync([unzip, "-tq", join(dir, "b.mcpb")]).exitCode).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  test("its manifest has what MCPB 0.3 requires, starts `indx mcp` on the vault the user picks, and lists the tools", () => {
    const { zip } = build();
    const manifest = JSON.parse(new TextDecoder().decode(entriesOf(zip)[0]?.data)) as ReturnType<typeof mcpbManifest>;
    expect(manifest.manifest_version).toBe(MCPB_MANIFEST_VERSION);
    for (const field of ["name", "version", "description"] as const) expect(typeof manifest[field]).toBe("string");
    expect(manifest.author.name.length).toBeGreaterThan(0);
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.server).toMatchObject({ type: "binary", entry_point: "server/indx" });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: MCPB's own placeholder, replaced by the client.
    expect(manifest.server.mcp_config.command).toBe("${__dirname}/server/indx");
    expect(manifest.server.mcp_config.args).toEqual(["mcp"]);
    for (const value of Object.values(manifest.server.mcp_config.env)) {
      const key = /^\$\{user_config\.(\w+)\}$/.exec(value)?.[1];
      if (key) expect(manifest.user_config).toHaveProperty(key);
    }
    expect(manifest.user_config.vault).toMatchObject({ type: "directory", required: true });
    expect(manifest.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(manifest.compatibility.platforms).toEqual(["linux"]);
    expect(mcpbManifest(INFO, "windows-x64", TOOLS).server.entry_point).toBe("server/indx.exe");
    expect(mcpbManifest(INFO, "darwin-arm64", TOOLS).compatibility.platforms).toEqual(["darwin"]);
  });
});

describe("server.json for the MCP Registry", () => {
  test("follows the registry's rules and names the bundle by its release URL and SHA-256", () => {
    const { zip, server } = build();
    expect(server.$schema).toBe(SERVER_JSON_SCHEMA);
    expect(server.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(server.name).toBe("io.github.indx/indx");
    expect(server.description.length).toBeGreaterThan(0);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.version).toBe("1.2.3");
    expect(server.repository).toEqual({ url: "https://github.com/indx/indx", source: "github" });
    expect(server.packages).toHaveLength(1);
    const [pkg] = server.packages;
    expect(pkg).toEqual({
      registryType: "mcpb",
      identifier: `https://github.com/indx/indx/releases/download/v1.2.3/${bundleName("linux-x64")}`,
      version: "1.2.3",
      fileSha256: sha256Of(zip),
      transport: { type: "stdio" },
    });
    expect(pkg?.fileSha256).toMatch(/^[a-f0-9]{64}$/);
  });
});
