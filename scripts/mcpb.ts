#!/usr/bin/env bun
/**
 * Packs the compiled binary (dist/indx, `bun run build` first; or `--binary` and `--target`) into
 * dist/indx-<target>.mcpb for Claude Desktop, and writes dist/server.json for the MCP Registry
 * naming that bundle (scripts/release/mcpb.ts; docs/mcp.md, Distribution).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { OPERATIONS } from "../src/app/registry.ts";
import { hostTarget, TARGETS, type Target } from "./build.ts";
import { bundleName, mcpbManifest, serverJson, sha256Of, zipStored } from "./release/mcpb.ts";
import { releaseInfo } from "./release.ts";

const ROOT = resolve(import.meta.dir, "..");
const { values } = parseArgs({ options: { binary: { type: "string" }, target: { type: "string" }, out: { type: "string" } } });
const target = (values.target ?? hostTarget()) as Target;
if (!TARGETS.includes(target)) throw new Error(`unknown target ${target}`);
const binary = values.binary ?? join(ROOT, "dist", target.startsWith("windows") ? "indx.exe" : "indx");
if (!existsSync(binary)) throw new Error(`${binary} is missing: run bun run build first`);
const out = values.out ?? join(ROOT, "dist");
const info = releaseInfo();
const manifest = mcpbManifest(
  info,
  target,
  OPERATIONS.filter((op) => !op.ai).map((op) => ({ name: op.name, description: op.description })),
);
const bundle = zipStored([
  { name: "manifest.json", data: new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`) },
  { name: manifest.server.entry_point, data: readFileSync(binary), mode: 0o755 },
]);
writeFileSync(join(out, bundleName(target)), bundle);
writeFileSync(join(out, "server.json"), `${JSON.stringify(serverJson(info, [{ target, sha256: sha256Of(bundle) }]), null, 2)}\n`);
console.log(`${join(out, bundleName(target))} (${(bundle.length / 1e6).toFixed(1)} MB) and ${join(out, "server.json")}`);
