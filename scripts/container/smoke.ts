#!/usr/bin/env bun
/**
 * Builds the container image with podman and proves its entrypoint answers /health.
 *
 * podman can build images here but cannot start containers (no cgroups), so the image's root
 * filesystem is exported and its entrypoint run the way a runtime would: in a chroot, in its own
 * mount and PID namespaces with /proc mounted, as the image's user, with exactly the image's
 * environment (docs/decisions.md, "A container image"). Steps:
 *
 *   1. dist/indx (built with `bun run build` unless --no-build and it exists)
 *   2. scripts/container/build-context.sh → build/container
 *   3. podman build --format docker --isolation chroot -f Containerfile
 *   4. podman create + podman export → a temporary root; podman image inspect → Env, User, Entrypoint, Cmd, Healthcheck
 *   5. the entrypoint without INDX_ALLOW_INSECURE_BIND: must refuse plain http on 0.0.0.0
 *   6. the entrypoint with it: /health must answer 200, the image's HEALTHCHECK command must exit 0
 *      inside the root, and an authenticated search must find the note put in /vault
 *
 * Exit 0 when all hold; 2 when podman, unshare or chroot is missing (nothing to prove here).
 *   bun scripts/container/smoke.ts [--no-build] [--keep]
 */
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");
const IMAGE = "localhost/indx:smoke";
const args = new Set(process.argv.slice(2));
const log = (line: string) => process.stdout.write(`smoke: ${line}\n`);

const tools = { podman: Bun.which("podman"), unshare: Bun.which("unshare"), chroot: Bun.which("chroot"), tar: Bun.which("tar") };
const missing = Object.entries(tools)
  .filter(([, path]) => !path)
  .map(([name]) => name);
if (missing.length) {
  log(`SKIP: ${missing.join(", ")} not found`);
  process.exit(2);
}
const tool = (name: keyof typeof tools) => tools[name] ?? name;

function run(argv: string[], opts: { cwd?: string; quiet?: boolean } = {}): string {
  log(`$ ${argv.join(" ")}`);
  const r = Bun.spawnSync(argv, { cwd: opts.cwd ?? ROOT, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${argv[0]} exited with ${r.exitCode}: ${r.stderr.toString().slice(-2000)}`);
  return r.stdout.toString();
}

async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => ok(port));
    });
  });
}

/**
 * unshare ignores SIGTERM while it waits, and the switch to the image's user clears the
 * parent-death signal, so the entrypoint (PID 1 of its namespace) is sent SIGTERM itself, as a
 * runtime's stop does; SIGKILL after 15 s.
 */
async function stopInRoot(proc: Bun.Subprocess): Promise<void> {
  const children = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const entry = children(proc.pid)[0];
  if (entry) process.kill(entry, "SIGTERM");
  const stopped = await Promise.race([proc.exited.then(() => true), Bun.sleep(15_000).then(() => false)]);
  if (!stopped) {
    if (entry) process.kill(entry, "SIGKILL");
    proc.kill("SIGKILL");
    await proc.exited;
  }
  log(`stopped the entrypoint (exit ${proc.exitCode}${stopped ? ", within 15 s of SIGTERM" : ", killed"})`);
}

interface ImageConfig {
  Env: string[];
  User: string;
  Entrypoint: string[];
  Cmd: string[];
}

const work = mkdtempSync(join(tmpdir(), "indx-container-smoke-"));
const rootfs = join(work, "root");
let failed = false;
try {
  if (!args.has("--no-build") || !existsSync(join(ROOT, "dist", "indx"))) run(["bun", "run", "build"]);
  run(["sh", "scripts/container/build-context.sh", "dist/indx", "build/container"]);
  run([tool("podman"), "build", "--format", "docker", "--isolation", "chroot", "-f", "Containerfile", "-t", IMAGE, "build/container"]);

  const config = (JSON.parse(run([tool("podman"), "image", "inspect", IMAGE])) as { Config: ImageConfig }[])[0]?.Config;
  const health = (JSON.parse(run([tool("podman"), "inspect", "--format", "{{json .HealthCheck}}", IMAGE])) as { Test: string[] } | null)?.Test;
  if (!config || !health) throw new Error("the image has no config or no HEALTHCHECK");
  log(`image: user ${config.User}, entrypoint ${JSON.stringify([...config.Entrypoint, ...config.Cmd])}, healthcheck ${JSON.stringify(health)}`);

  const container = run([tool("podman"), "create", IMAGE]).trim();
  mkdirSync(rootfs);
  try {
    run(["sh", "-c", `${tool("podman")} export ${container} | ${tool("tar")} -x -C ${rootfs}`]);
  } finally {
    run([tool("podman"), "rm", container]);
  }

  // What a user mounts at /vault.
  const [uid = 0, gid = 0] = config.User.split(":").map(Number);
  const asRoot = process.getuid?.() === 0;
  writeFileSync(join(rootfs, "vault", "Hello.md"), "# Hello\n\nwritten before the container started: quasar\n");
  if (asRoot) chownSync(join(rootfs, "vault", "Hello.md"), uid, gid);

  const port = await freePort();
  const env = Object.fromEntries(config.Env.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
  env.INDX_PORT = String(port);

  /**
   * Runs a command of the image inside its root: new mount and PID namespaces (a user namespace
   * too when not root), /proc and the device nodes a runtime provides, the image's user and
   * environment, and nothing of this shell's environment.
   */
  const inRoot = (command: string[], extraEnv: Record<string, string> = {}) => {
    const userns = asRoot ? [] : ["--user", "--map-root-user"];
    const user = asRoot ? [`--userspec=${uid}:${gid}`] : [];
    const devices = ["null", "zero", "random", "urandom"].map((d) => `touch ${rootfs}/dev/${d} && mount --bind /dev/${d} ${rootfs}/dev/${d}`).join(" && ");
    const argv = [
      tool("unshare"),
      ...userns,
      "--mount",
      "--pid",
      "--fork",
      "--kill-child=SIGTERM",
      "sh",
      "-c",
      `mount -t proc proc ${rootfs}/proc && ${devices} && exec ${tool("chroot")} ${user.join(" ")} ${rootfs} "$@"`,
      "sh",
      ...command,
    ];
    log(
      `$ ${argv.slice(0, -command.length).join(" ")} ${command.join(" ")}   (env: the image's${Object.keys(extraEnv).length ? ` + ${JSON.stringify(extraEnv)}` : ""}, INDX_PORT=${port})`,
    );
    return Bun.spawn(argv, { env: { ...env, ...extraEnv }, stdout: "pipe", stderr: "pipe" });
  };
  const entrypoint = [...config.Entrypoint, ...config.Cmd];

  // 5. No TLS, no trusted proxy, not forced: refused.
  const refused = inRoot(entrypoint);
  const refusedCode = await refused.exited;
  const refusedErr = await new Response(refused.stderr).text();
  if (refusedCode === 0 || !refusedErr.includes("Refusing to serve plain http on 0.0.0.0"))
    throw new Error(`expected the plain-http bind to be refused; exit ${refusedCode}: ${refusedErr}`);
  log(`refused as it should: ${refusedErr.trim().split("\n").at(-1)}`);

  // 6. Forced (as compose.yaml does, publishing on 127.0.0.1 only): it must serve.
  const server = inRoot(entrypoint, { INDX_ALLOW_INSECURE_BIND: "true" });
  try {
    const deadline = Date.now() + 120_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await Bun.sleep(250);
    }
    if (status !== 200) throw new Error(`/health did not answer 200 within 120 s; server stderr: ${await new Response(server.stderr).text()}`);
    log(`GET http://127.0.0.1:${port}/health → 200 ${await (await fetch(`http://127.0.0.1:${port}/health`)).text()}`);

    const probe = inRoot(health.slice(1));
    const probeCode = await probe.exited;
    const probeOut = await new Response(probe.stdout).text();
    if (probeCode !== 0) throw new Error(`the HEALTHCHECK command exited ${probeCode}: ${probeOut} ${await new Response(probe.stderr).text()}`);
    log(`HEALTHCHECK ${JSON.stringify(health.slice(1))} → exit 0 ${probeOut.trim()}`);

    const token = /api_key\s*=\s*"([^"]+)"/.exec(readFileSync(join(rootfs, "data", "config.toml"), "utf8"))?.[1];
    const search = await fetch(`http://127.0.0.1:${port}/v1/search?q=quasar`, { headers: { authorization: `Bearer ${token}` } });
    const body = await search.text();
    if (search.status !== 200 || !body.includes("Hello.md")) throw new Error(`search over the mounted vault failed: ${search.status} ${body.slice(0, 500)}`);
    log("GET /v1/search?q=quasar with the admin token the first start wrote to /data/config.toml → finds Hello.md");
  } finally {
    await stopInRoot(server);
  }
  log("PASS: the image builds, refuses plain http unforced, answers /health, its HEALTHCHECK passes, and it serves the mounted vault");
} catch (err) {
  failed = true;
  log(`FAIL: ${(err as Error).message}`);
} finally {
  if (args.has("--keep")) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
