/**
 * The MCP Bundle (.mcpb) a Claude Desktop user installs with one click, and the server.json the
 * MCP Registry lists it by (docs/mcp.md, Distribution). A bundle is a ZIP archive holding
 * manifest.json (MCPB manifest 0.3) and the compiled binary; server.json names the bundle's
 * release URL and SHA-256, so it can never point at a file it was not made from. Pure functions of
 * their inputs but for zipStored's bytes (test/unit/release/mcpb.test.ts builds one from a fake binary).
 */
import { createHash } from "node:crypto";
import type { Target } from "../build.ts";
import { downloadBase, type ReleaseInfo } from "./packaging.ts";

export const MCPB_MANIFEST_VERSION = "0.3";
/** The server.json schema the MCP Registry validates against. */
export const SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json";

/** What the registry shows (at most 100 characters there). */
export const REGISTRY_DESCRIPTION = "Search, read, edit and link an Obsidian vault's Markdown notes, with grounded AI on your model.";

export const bundleName = (target: Target) => `indx-${target}.mcpb`;

const PLATFORM: Record<string, string> = { linux: "linux", darwin: "darwin", windows: "win32" };

/** manifest.json: a binary server started as `indx mcp` on the vault the user picks. */
export function mcpbManifest(r: ReleaseInfo, target: Target, tools: readonly { name: string; description: string }[]) {
  const exe = target.startsWith("windows") ? "server/indx.exe" : "server/indx";
  return {
    manifest_version: MCPB_MANIFEST_VERSION,
    name: "indx",
    display_name: "indx: Obsidian vault",
    version: r.version,
    description: r.description,
    author: { name: "indx" },
    repository: { type: "git", url: `https://github.com/${r.repo}` },
    homepage: `https://github.com/${r.repo}`,
    license: "MIT",
    server: {
      type: "binary",
      entry_point: exe,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: MCPB's own placeholders, which the client replaces.
      mcp_config: { command: `\${__dirname}/${exe}`, args: ["mcp"], env: { INDX_VAULT: "${user_config.vault}", INDX_LOG: "off" } },
    },
    // The AI tools join when the vault configures a model: the list is what every vault has.
    tools: tools.map(({ name, description }) => ({ name, description })),
    tools_generated: true,
    keywords: ["obsidian", "markdown", "notes", "search", "vault"],
    compatibility: { platforms: [PLATFORM[target.split("-")[0] ?? ""] ?? "linux"] },
    user_config: {
      vault: { type: "directory", title: "Vault", description: "The Obsidian vault (a folder of Markdown notes) indx serves.", required: true },
    },
  };
}

/** server.json for the MCP Registry: the bundle of each target, by its release URL and SHA-256. */
export function serverJson(r: ReleaseInfo, bundles: readonly { target: Target; sha256: string }[]) {
  const [owner, name] = r.repo.split("/");
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: `io.github.${owner}/${name}`,
    description: REGISTRY_DESCRIPTION,
    version: r.version,
    repository: { url: `https://github.com/${r.repo}`, source: "github" },
    packages: bundles.map((b) => ({
      registryType: "mcpb",
      identifier: `${downloadBase(r)}/${bundleName(b.target)}`,
      version: r.version,
      fileSha256: b.sha256,
      transport: { type: "stdio" },
    })),
  };
}

export const sha256Of = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * A ZIP archive of stored (uncompressed) entries: what an MCPB client unpacks, written without a
 * dependency. Each entry keeps its Unix mode (the binary stays executable once unpacked).
 */
export function zipStored(entries: readonly { name: string; data: Uint8Array; mode?: number }[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = new TextEncoder().encode(e.name);
    const crc = Bun.hash.crc32(e.data);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, 0, true); // stored
    local.setUint32(14, crc, true);
    local.setUint32(18, e.data.length, true);
    local.setUint32(22, e.data.length, true);
    local.setUint16(26, name.length, true);
    parts.push(new Uint8Array(local.buffer), name, e.data);
    const dir = new DataView(new ArrayBuffer(46));
    dir.setUint32(0, 0x02014b50, true);
    dir.setUint16(4, (3 << 8) | 20, true); // made by Unix, so the external attributes carry the mode
    dir.setUint16(6, 20, true);
    dir.setUint32(16, crc, true);
    dir.setUint32(20, e.data.length, true);
    dir.setUint32(24, e.data.length, true);
    dir.setUint16(28, name.length, true);
    dir.setUint32(38, ((e.mode ?? 0o644) | 0o100000) << 16, true);
    dir.setUint32(42, offset, true);
    central.push(new Uint8Array(dir.buffer), name);
    offset += 30 + name.length + e.data.length;
  }
  const dirSize = central.reduce((n, p) => n + p.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, dirSize, true);
  end.setUint32(16, offset, true);
  const out = new Uint8Array(offset + dirSize + 22);
  let at = 0;
  for (const p of [...parts, ...central, new Uint8Array(end.buffer)]) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
