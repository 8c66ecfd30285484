#!/usr/bin/env bun
/**
 * Checks dist/indx with the MCP Inspector's CLI mode (npm @modelcontextprotocol/inspector, a dev
 * dependency: runs offline from node_modules) against a temporary copy of fixtures/demo-vault:
 * tools/list (with the Inspector's --strict schema checks), tools/call vault_search and note_write,
 * resources/read and prompts/list. Prints PASS/FAIL per step and exits non-zero on failure.
 * Build first: `bun run build`. Run: `bun run mcp:inspect`.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "dist", "indx");
const failures: string[] = [];

function report(ok: boolean, step: string, detail = ""): void {
  console.log(`${ok ? "PASS" : "FAIL"}  ${step}${detail ? `  (${detail})` : ""}`);
  if (!ok) failures.push(step);
}

if (!existsSync(BIN)) {
  report(false, "dist/indx exists", "run `bun run build` first");
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "indx-inspector-"));
const vault = join(dir, "vault");
cpSync(join(ROOT, "fixtures", "demo-vault"), vault, { recursive: true });
mkdirSync(join(dir, "home"), { recursive: true });
const serverEnv: Record<string, string> = {
  INDX_VAULT: vault,
  INDX_DATA_DIR: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
  XDG_DATA_HOME: join(dir, "share"),
  INDX_LOG: "off",
};
// The Inspector keeps a catalog and an npm cache under HOME: keep them in the temp dir too.
const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home"), npm_config_offline: "true", ...serverEnv };

function inspector(args: string[]): { code: number; json: any; stderr: string } {
  const envFlags = Object.entries(serverEnv).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  const p = Bun.spawnSync(["npx", "--no-install", "@modelcontextprotocol/inspector", "--cli", BIN, "mcp", ...envFlags, "--format", "json", ...args], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = p.stdout.toString();
  let json: any = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = null;
  }
  return { code: p.exitCode ?? 1, json, stderr: p.stderr.toString() };
}

try {
  const index = Bun.spawnSync([BIN, "vault", "index", "--json"], { env, stdout: "pipe", stderr: "pipe" });
  report(
    index.exitCode === 0,
    "index the demo vault copy",
    index.exitCode === 0 ? `${JSON.parse(index.stdout.toString()).added} files` : index.stderr.toString().trim(),
  );

  const list = inspector(["--method", "tools/list", "--strict"]);
  const names: string[] = list.json?.result?.tools?.map((t: { name: string }) => t.name) ?? [];
  report(
    list.code === 0 && names.includes("vault_search") && names.includes("note_read"),
    "tools/list (Inspector --strict schema checks)",
    list.code === 0 ? `${names.length} tools` : list.stderr.trim().split("\n").slice(-3).join(" | "),
  );

  const call = inspector(["--method", "tools/call", "--tool-name", "vault_search", "--tool-arg", "q=rollback runbook", "--tool-arg", "limit=5"]);
  const result = call.json?.result;
  const top = result?.structuredContent?.results?.[0]?.path;
  report(
    call.code === 0 && result?.isError !== true && top === "Reference/Runbook.md",
    "tools/call vault_search",
    call.code === 0 ? `top hit ${top}; "${result?.content?.[0]?.text ?? ""}"` : call.stderr.trim().split("\n").slice(-3).join(" | "),
  );

  const read = inspector(["--method", "resources/read", "--uri", "vault://Projects/Apollo%20Launch.md"]);
  const text: string = read.json?.result?.contents?.[0]?.text ?? "";
  report(
    read.code === 0 && text.includes("Apollo Launch"),
    "resources/read vault://Projects/Apollo%20Launch.md",
    read.code === 0 ? `${text.length} chars` : read.stderr.trim().split("\n").slice(-3).join(" | "),
  );

  const write = inspector([
    "--method",
    "tools/call",
    "--tool-name",
    "note_write",
    "--tool-arg",
    "path=Inbox/From the Inspector.md",
    "--tool-arg",
    "body=# From the Inspector",
    "--tool-arg",
    "if_not_exists=true",
  ]);
  const written = write.json?.result;
  const onDisk = existsSync(join(vault, "Inbox/From the Inspector.md")) ? readFileSync(join(vault, "Inbox/From the Inspector.md"), "utf8") : "";
  report(
    write.code === 0 && written?.isError !== true && onDisk.startsWith("# From the Inspector"),
    "tools/call note_write (stdio defaults to read + write)",
    write.code === 0 ? `etag ${written?.structuredContent?.etag}` : write.stderr.trim().split("\n").slice(-3).join(" | "),
  );

  const prompts = inspector(["--method", "prompts/list"]);
  const promptNames: string[] = prompts.json?.result?.prompts?.map((p: { name: string }) => p.name) ?? [];
  report(prompts.code === 0 && promptNames.includes("vault_summary"), "prompts/list", promptNames.join(", "));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(failures.length ? `FAIL: ${failures.length} step(s) failed` : "PASS: the MCP Inspector drove dist/indx successfully");
process.exit(failures.length ? 1 : 0);
