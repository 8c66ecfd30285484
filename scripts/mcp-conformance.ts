#!/usr/bin/env bun
/**
 * Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance, a dev
 * dependency, run with Bun) against dist/indx: every server scenario of 2025-11-25 and of
 * 2026-07-28, over Streamable HTTP (`indx serve`) and over stdio (`indx mcp`, behind
 * scripts/mcp-stdio-bridge.ts since the suite speaks only HTTP), on a temporary copy of
 * fixtures/demo-vault. Prints one table row per transport, version and scenario. Build first:
 * `bun run build`. Run: `bun run mcp:conformance` (`--verbose` prints every check of a failed
 * scenario; `--transport http|stdio`, `--version 2025-11-25|2026-07-28` to run part of it).
 *
 * Over HTTP the suite's client sends no Authorization header, so a loopback proxy in front of /mcp
 * adds the admin token (and forwards every other header as sent, Host included: the
 * DNS-rebinding scenario depends on it). What does not apply to indx is named with its reason
 * (NOT_APPLICABLE, UNTESTABLE_CHECKS; docs/mcp.md, Conformance).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startStdioBridge } from "./mcp-stdio-bridge.ts";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "dist", "indx");
const SUITE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const verbose = process.argv.includes("--verbose");
const only = (flag: string) => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const VERSIONS = ["2025-11-25", "2026-07-28"].filter((v) => !only("--version") || v === only("--version"));
const TRANSPORTS = (["http", "stdio"] as const).filter((t) => !only("--transport") || t === only("--transport"));
type Transport = (typeof TRANSPORTS)[number];

const FIXTURES = "calls the suite's own fixtures (test_* tools, test:// resources, test_* prompts), which a vault server does not have";
const ASKS_NOTHING =
  "indx asks the client nothing mid-call (no elicitation, sampling or roots), so it returns no input_required results; the scenario calls the suite's test_* tools";
const HTTP_ONLY = "a rule of the HTTP transport (headers, sessions, streams): over stdio the bridge, not indx, would be tested";

/** Scenarios that do not apply, and why; `stdio` entries apply only over stdio. */
const NOT_APPLICABLE: Record<string, { reason: string; transport?: Transport }> = {
  ...Object.fromEntries(
    [
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
      "resources-read-text",
      "resources-read-binary",
      "resources-templates-read",
      "resources-subscribe",
      "resources-unsubscribe",
      "prompts-get-simple",
      "prompts-get-with-args",
      "prompts-get-embedded-resource",
      "prompts-get-with-image",
    ].map((s) => [s, { reason: FIXTURES }]),
  ),
  "server-sse-multiple-streams": { reason: FIXTURES },
  "http-custom-header-server-validation": { reason: "indx's tools mirror no argument into a header (no x-mcp-header annotation)" },
  ...Object.fromEntries(
    [
      "basic-elicitation",
      "basic-sampling",
      "basic-list-roots",
      "request-state",
      "multiple-input-requests",
      "multi-round",
      "missing-input-response",
      "non-tool-request",
      "result-type",
      "unsupported-methods",
      "tampered-state",
      "capability-check",
      "ignore-extra-params",
      "validate-input",
    ].map((s) => [`input-required-result-${s}`, { reason: ASKS_NOTHING }]),
  ),
  "dns-rebinding-protection": { reason: HTTP_ONLY, transport: "stdio" },
  "http-header-validation": { reason: HTTP_ONLY, transport: "stdio" },
  "server-session-lifecycle": { reason: HTTP_ONLY, transport: "stdio" },
  "server-sse-polling": { reason: HTTP_ONLY, transport: "stdio" },
};

/** Checks inside an applicable scenario that cannot pass against indx, and why; matched by id (a prefix ending in * matches a family). */
const UNTESTABLE_CHECKS: Record<string, string> = {
  "server-sse-disconnect-resume": "the suite's test_reconnection tool closes its own stream mid-call; resuming is covered by test/integration/mcp-http.test.ts",
  "sep-2575-server-rejects-undeclared-capability": "no indx request needs a client capability (the suite's test_missing_capability tool)",
  "sep-2575-missing-capability-http-400": "no indx request needs a client capability (the suite's test_missing_capability tool)",
  "sep-2575-http-server-no-independent-requests-on-stream": "needs the suite's test_streaming_elicitation tool; indx sends no requests on any stream",
  "sep-2575-server-no-log-without-loglevel": "needs the suite's test_logging_tool; test/integration/mcp-2026.test.ts holds indx to it",
};
/** Over stdio, the HTTP status of a 2026 error is the bridge's, not indx's. */
const UNTESTABLE_OVER_STDIO = /http/;

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

/** Every server scenario with the spec versions it belongs to (`- name [v1,v2]`); extensions are not part of a version. */
function scenarios(): { name: string; versions: string[] }[] {
  const list = Bun.spawnSync(["bun", SUITE, "list", "--server"], { cwd: dir, stdout: "pipe", stderr: "pipe" }).stdout.toString();
  return [...list.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map((m) => ({ name: m[1] ?? "", versions: (m[2] ?? "").split(",") }));
}

/** Async: the proxy runs in this process, so a blocking spawn would stall every request the suite makes. */
async function runScenario(url: string, scenario: string, version: string, outDir: string): Promise<Check[]> {
  const args = ["bun", SUITE, "server", "--url", url, "--scenario", scenario, "--spec-version", version, "-o", outDir];
  await Bun.spawn(args, { cwd: dir, stdout: "ignore", stderr: "ignore" }).exited;
  const results = existsSync(outDir)
    ? readdirSync(outDir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith("checks.json"))
    : [];
  return results.flatMap((f) => JSON.parse(readFileSync(join(outDir, f), "utf8")) as Check[]);
}

async function endpoint(transport: Transport): Promise<{ url: string; stop(): Promise<void> }> {
  if (transport === "stdio") return startStdioBridge(BIN, env);
  const server = await startServe();
  const key = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env }).stdout.toString().trim();
  const proxy = authProxy(server.url, key);
  return {
    url: `http://127.0.0.1:${proxy.port}/mcp`,
    async stop() {
      proxy.stop(true);
      server.process.kill();
      await server.process.exited;
    },
  };
}

const failed: string[] = [];
const all = scenarios();
console.log(`${"transport".padEnd(9)} ${"version".padEnd(10)} ${"result".padEnd(5)} ${"scenario".padEnd(46)} checks`);
try {
  for (const transport of TRANSPORTS) {
    const target = await endpoint(transport);
    try {
      for (const version of VERSIONS)
        for (const { name } of all.filter((s) => s.versions.includes(version))) {
          const na = NOT_APPLICABLE[name];
          const row = `${transport.padEnd(9)} ${version.padEnd(10)}`;
          if (na && (!na.transport || na.transport === transport)) {
            console.log(`${row} ${"n/a".padEnd(5)} ${name.padEnd(46)} ${na.reason}`);
            continue;
          }
          const checks = await runScenario(target.url, name, version, join(dir, "results", transport, version, name));
          const untestable = (c: Check) => UNTESTABLE_CHECKS[c.id] ?? (transport === "stdio" && UNTESTABLE_OVER_STDIO.test(c.id) ? HTTP_ONLY : undefined);
          const failures = checks.filter((c) => c.status === "FAILURE" && !untestable(c));
          const warnings = checks.filter((c) => c.status === "WARNING" && !untestable(c));
          const excused = checks.filter((c) => (c.status === "FAILURE" || c.status === "WARNING") && untestable(c));
          const status = checks.length === 0 ? "ERROR" : failures.length ? "FAIL" : warnings.length ? "WARN" : "PASS";
          if (status === "FAIL" || status === "ERROR") failed.push(`${transport}/${version}/${name}`);
          const ok = checks.filter((c) => c.status === "SUCCESS").length;
          const counts = `${ok} ok, ${failures.length} failed, ${warnings.length} warnings${excused.length ? `, ${excused.length} not applicable` : ""}`;
          console.log(`${row} ${status.padEnd(5)} ${name.padEnd(46)} ${counts}`);
          if (verbose || status !== "PASS") for (const c of [...failures, ...warnings]) console.log(`        ${c.status} ${c.id}: ${c.errorMessage ?? c.name}`);
          for (const c of excused) console.log(`        n/a ${c.id}: ${untestable(c)}`);
        }
    } finally {
      await target.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  failed.length ? `FAIL: ${failed.join(", ")}` : `PASS: every scenario that applies to indx passes (${TRANSPORTS.join(", ")}; ${VERSIONS.join(", ")})`,
);
process.exit(failed.length ? 1 : 0);
