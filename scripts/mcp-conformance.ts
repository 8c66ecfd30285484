#!/usr/bin/env bun
/**
 * Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance, a dev
 * dependency) against dist/indx serve over Streamable HTTP, on a temporary copy of
 * fixtures/demo-vault with an ephemeral port. Build first: `bun run build`. Run:
 * `bun run mcp:conformance` (`--verbose` prints every check of a failed scenario).
 *
 * The suite's client sends no Authorization header, so a loopback proxy in front of /mcp adds the
 * admin token (and forwards every other header as sent, Host included: the DNS-rebinding scenario
 * depends on it). Scenarios that call the suite's fixture tools, resources or prompts (test_*,
 * test://…) cannot pass against a real vault server; they are listed as not applicable.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "dist", "indx");
const SUITE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const verbose = process.argv.includes("--verbose");

/** Scenarios that need the suite's own fixtures: tools such as test_simple_text, test:// resources, test_* prompts. */
const FIXTURE_SCENARIOS = new Set([
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "json-schema-2020-12",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "server-sse-multiple-streams",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-embedded-resource",
  "prompts-get-with-image",
]);

/** Checks that can only warn against a server without the suite's fixtures, and why. */
const FIXTURE_CHECKS: Record<string, string> = {
  "server-sse-disconnect-resume": "the suite's test_reconnection tool closes its own stream mid-call; resuming is covered by test/integration/mcp-http.test.ts",
};

interface Check {
  id: string;
  name: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

for (const [file, hint] of [
  [BIN, "run `bun run build` first"],
  [SUITE, "run `bun install` (the suite is a dev dependency)"],
] as const) {
  if (!existsSync(file)) {
    console.error(`missing ${file}: ${hint}`);
    process.exit(1);
  }
}

const dir = mkdtempSync(join(tmpdir(), "indx-conformance-"));
const vault = join(dir, "vault");
cpSync(join(ROOT, "fixtures", "demo-vault"), vault, { recursive: true });
mkdirSync(join(dir, "home"), { recursive: true });
const env: Record<string, string> = {
  PATH: process.env.PATH ?? "",
  HOME: join(dir, "home"),
  INDX_VAULT: vault,
  INDX_DATA_DIR: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
  XDG_DATA_HOME: join(dir, "share"),
  INDX_LOG: "off",
};

async function startServe(): Promise<{ url: string; process: Bun.Subprocess }> {
  const server = Bun.spawn([BIN, "serve", "--port", "0"], { env, stdout: "ignore", stderr: "pipe" });
  const reader = server.stderr.getReader();
  let seen = "";
  let url = "";
  while (!url) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1] ?? "";
  }
  reader.releaseLock();
  if (!url) throw new Error(`indx serve did not start: ${seen.trim()}`);
  return { url, process: server };
}

/** Forwards to indx with the admin token added; everything else (Host, Origin, body, streams) as sent. */
function authProxy(target: string, token: string) {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.delete("connection");
      headers.set("authorization", `Bearer ${token}`);
      // Requests are small JSON-RPC messages: buffered, since Bun stalls piping a request body into fetch.
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      return fetch(target + url.pathname + url.search, {
        method: request.method,
        headers,
        body,
        signal: request.signal,
        redirect: "manual",
        decompress: false,
      });
    },
  });
}

function scenarioNames(): string[] {
  const list = Bun.spawnSync(["bun", SUITE, "list", "--server"], { cwd: dir, stdout: "pipe", stderr: "pipe" }).stdout.toString();
  return [...list.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
}

/** Async: the proxy runs in this process, so a blocking spawn would stall every request the suite makes. */
async function runScenario(url: string, scenario: string, outDir: string): Promise<Check[]> {
  const suite = Bun.spawn(["bun", SUITE, "server", "--url", url, "--scenario", scenario, "-o", outDir], { cwd: dir, stdout: "ignore", stderr: "ignore" });
  await suite.exited;
  const results = existsSync(outDir)
    ? readdirSync(outDir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith("checks.json"))
    : [];
  return results.flatMap((f) => JSON.parse(readFileSync(join(outDir, f), "utf8")) as Check[]);
}

const server = await startServe();
const key = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env }).stdout.toString().trim();
const proxy = authProxy(server.url, key);
const failed: string[] = [];
try {
  const url = `http://127.0.0.1:${proxy.port}/mcp`;
  for (const scenario of scenarioNames()) {
    const checks = await runScenario(url, scenario, join(dir, "results", scenario));
    const failures = checks.filter((c) => c.status === "FAILURE");
    const warnings = checks.filter((c) => c.status === "WARNING");
    const applies = !FIXTURE_SCENARIOS.has(scenario);
    const status = checks.length === 0 ? "ERROR" : failures.length ? "FAIL" : warnings.length ? "WARN" : "PASS";
    if (applies && (status === "FAIL" || status === "ERROR")) failed.push(scenario);
    const counts = `${checks.filter((c) => c.status === "SUCCESS").length} ok, ${failures.length} failed, ${warnings.length} warnings`;
    console.log(`${applies ? status.padEnd(5) : "n/a  "} ${scenario.padEnd(32)} ${counts}${applies ? "" : "  (needs the suite's fixtures)"}`);
    if (verbose || (applies && status !== "PASS"))
      for (const c of [...failures, ...warnings]) {
        const why = FIXTURE_CHECKS[c.id];
        console.log(`        ${c.status} ${c.id}: ${c.errorMessage ?? c.name}${why ? ` (expected: ${why})` : ""}`);
      }
  }
} finally {
  proxy.stop(true);
  server.process.kill();
  await server.process.exited;
  rmSync(dir, { recursive: true, force: true });
}

console.log(failed.length ? `FAIL: ${failed.join(", ")}` : "PASS: every scenario that applies to indx passes");
process.exit(failed.length ? 1 : 0);
