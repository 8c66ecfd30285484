import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_KEYS, KEY_BY_NAME } from "../../../src/config/keys.ts";
import { loadConfig, writeConfigValue } from "../../../src/config/load.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "indx-config-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("configuration", () => {
  test("every key is defined once (a second definition silently replaces the first, and its validation with it)", () => {
    const names = CONFIG_KEYS.map((k) => k.key);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(KEY_BY_NAME.get("server.public_url")?.valueProblem?.("https://vault.example.com/some/path")).toContain("no path");
  });

  test("flags > env > file > defaults", () => {
    const d = tmp();
    const env = { XDG_CONFIG_HOME: d } as Record<string, string>;
    expect(loadConfig({ env }).int("server.port")).toBe(8787);
    writeConfigValue(join(d, "indx", "config.toml"), "server.port", "9000");
    expect(loadConfig({ env }).int("server.port")).toBe(9000);
    expect(loadConfig({ env }).source("server.port")).toBe("file");
    expect(loadConfig({ env: { ...env, INDX_PORT: "9100" } }).int("server.port")).toBe(9100);
    const flagged = loadConfig({ env: { ...env, INDX_PORT: "9100" }, flags: { "server.port": "9200" } });
    expect(flagged.int("server.port")).toBe(9200);
    expect(flagged.source("server.port")).toBe("flag");
  });

  test("the file is written with mode 0600 and secrets are redacted", () => {
    const d = tmp();
    const path = join(d, "indx", "config.toml");
    writeConfigValue(path, "server.api_key", "indx_secret");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const cfg = loadConfig({ env: { XDG_CONFIG_HOME: d } });
    expect(cfg.str("server.api_key")).toBe("indx_secret");
    expect(cfg.redacted()["server.api_key"]!.value).toBe("set");
    expect(JSON.stringify(cfg.redacted())).not.toContain("indx_secret");
  });

  test("bad values and bad TOML are typed errors", () => {
    const d = tmp();
    expect(() => writeConfigValue(join(d, "c.toml"), "server.port", "abc")).toThrow(/expects int/);
    expect(() => writeConfigValue(join(d, "c.toml"), "nope.key", "1")).toThrow(/Unknown config key/);
    writeFileSync(join(d, "bad.toml"), "server = [unclosed");
    expect(() => loadConfig({ env: { INDX_CONFIG: join(d, "bad.toml") } })).toThrow(/not valid TOML/);
    expect(() => loadConfig({ env: { INDX_PORT: "-1" } })).toThrow(/expects int/);
  });

  test("lists come from comma-separated env values", () => {
    expect(loadConfig({ env: { INDX_EXCLUDE: "Templates/**, Archive/**" } }).list("index.exclude")).toEqual(["Templates/**", "Archive/**"]);
  });
});

// /dev/full answers every write with ENOSPC: a temp file that points there is a full disk.
test.skipIf(!existsSync("/dev/full"))("a config write that fails (a full disk) leaves no config.toml.<pid>.tmp, and the file as it was", () => {
  const d = tmp();
  const path = join(d, "config.toml");
  writeConfigValue(path, "server.port", "9000");
  const before = readFileSync(path, "utf8");
  symlinkSync("/dev/full", `${path}.${process.pid}.tmp`);
  let code: string | undefined;
  try {
    writeConfigValue(path, "server.port", "9001");
  } catch (err) {
    code = (err as { code?: string }).code;
  }
  expect(code).toBe("ENOSPC");
  expect(readdirSync(d).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  expect(readFileSync(path, "utf8")).toBe(before);
});
