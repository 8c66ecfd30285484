import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * `indx service` and the doctor's service check through the CLI, on Linux, with every file under
 * the sandbox's home and a stand-in `systemctl` first on PATH that records its arguments and keeps
 * the unit's state (so the real user manager is never touched).
 */
const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

describe.skipIf(process.platform !== "linux")("indx service on Linux", () => {
  let sb: Sandbox;
  let env: Record<string, string>;
  let log: string;
  let unit: string;
  let bin: string;

  beforeAll(() => {
    sb = sandbox({ "Note.md": "# Note\n" });
    const fakes = join(sb.dir, "fake-bin");
    mkdirSync(fakes);
    log = join(sb.dir, "systemctl.log");
    const state = join(sb.dir, "systemctl.state");
    writeFileSync(
      join(fakes, "systemctl"),
      `#!/bin/sh
echo "$*" >> '${log}'
case "$*" in
  *is-active*) if [ -f '${state}' ]; then echo active; exit 0; else echo inactive; exit 3; fi ;;
  *restart*|*" start "*) touch '${state}' ;;
  *disable*) rm -f '${state}' ;;
esac
exit 0
`,
    );
    chmodSync(join(fakes, "systemctl"), 0o755);
    bin = join(sb.dir, "indx-bin");
    writeFileSync(bin, "#!/bin/sh\n");
    chmodSync(bin, 0o755);
    env = { ...sb.env, PATH: `${fakes}:${process.env.PATH ?? ""}` };
    unit = join(env.XDG_CONFIG_HOME ?? "", "systemd", "user", "indx.service");
  });
  afterAll(() => sb?.cleanup());

  const indx = (...args: string[]) => {
    const r = Bun.spawnSync(["bun", MAIN, ...args], { env, stdout: "pipe", stderr: "pipe" });
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };
  const calls = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);

  test("install --dry-run prints the unit and the commands, writes and runs nothing", () => {
    const r = indx("service", "install", "--dry-run", "--binary", bin);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ manager: "systemd", path: unit, file: "would_create", dry_run: true });
    expect(report.content).toContain(`"--vault" "${sb.vault}"`);
    expect(report.content).toContain(`"--data-dir" "${sb.dataDir}"`);
    expect(existsSync(unit)).toBe(false);
    expect(calls()).toEqual([]);
  });

  test("install writes the unit under the sandbox's config home and starts it; again changes nothing", () => {
    const first = indx("service", "install", "--binary", bin);
    expect(first.err).toBe("");
    expect(JSON.parse(first.out)).toMatchObject({ file: "created", running: true });
    expect(readFileSync(unit, "utf8")).toContain(`ExecStart="${bin}" "serve"`);
    expect(calls()).toContain("--user enable indx.service");
    const second = indx("service", "install", "--binary", bin);
    expect(JSON.parse(second.out)).toMatchObject({ file: "unchanged", running: true });
    expect(calls().filter((c) => c.includes("restart"))).toHaveLength(1);
  });

  test("status and doctor report it; uninstall removes it, twice without complaint", () => {
    expect(JSON.parse(indx("service", "status").out)).toMatchObject({ installed: true, running: true, state: "active" });
    const doctor = JSON.parse(indx("doctor").out) as { checks: { name: string; status: string; message: string }[] };
    expect(doctor.checks.find((c) => c.name === "service")).toMatchObject({ status: "ok" });
    expect(JSON.parse(indx("service", "uninstall").out)).toMatchObject({ removed: true });
    expect(existsSync(unit)).toBe(false);
    expect(calls()).toContain("--user disable --now indx.service");
    expect(JSON.parse(indx("service", "uninstall").out)).toMatchObject({ removed: false });
    expect(JSON.parse(indx("service", "status").out)).toMatchObject({ installed: false });
  });

  test("serve --help says how to force a plain-http bind", () => {
    const help = indx("serve", "--help").out;
    expect(help).toContain("--insecure-bind");
    expect(help).toContain("server.allow_insecure_bind");
  });
});
