import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { IndxError } from "../core/errors.ts";
import { configHome, currentPlatform } from "../core/platform-dirs.ts";
import { writeFileAtomic } from "../core/write-file-atomic.ts";
import { CONFIG_KEYS, type ConfigKey, KEY_BY_NAME } from "./keys.ts";

export type ConfigSource = "flag" | "env" | "file" | "default";

/** A Config as plain data, for another thread (the index worker): structured-clone safe. */
export interface ConfigSnapshot {
  path: string;
  fileExists: boolean;
  values: [string, { value: unknown; source: ConfigSource }][];
  unknownKeys: string[];
}

export interface ConfigInput {
  /** Values from command-line flags, by dotted key. Undefined entries are ignored. */
  flags?: Record<string, unknown>;
  env?: Record<string, string | undefined>;
  /**
   * The key `config set` is about to write: a value of it in the file or the environment that
   * no longer passes its checks loads as its default instead of failing, so the command that
   * fixes it can run (docs/decisions.md, "Structured config values checked when set").
   */
  repairing?: string;
  /**
   * A named vault of the file's `[vaults.<name>]` tables (docs/decisions.md, "Several vaults in
   * one server"): its `path` and `data_dir` are this configuration's vault, and any other key in
   * its table overrides the file's own value for this vault alone.
   */
  vaultName?: string;
}

/**
 * The merged configuration: flags > env > file > defaults (docs/contracts.md, Configuration),
 * except for keys whose declared precedence puts the file before the environment.
 */
export class Config {
  constructor(
    readonly path: string,
    readonly fileExists: boolean,
    private readonly values: Map<string, { value: unknown; source: ConfigSource }>,
    /** Keys in the file that indx does not know (a typo does nothing, so it is reported). */
    readonly unknownKeys: readonly string[] = [],
  ) {}

  static fromSnapshot(s: ConfigSnapshot): Config {
    return new Config(s.path, s.fileExists, new Map(s.values), s.unknownKeys);
  }

  /** The merged values as they are now, so another thread sees exactly this configuration. */
  snapshot(): ConfigSnapshot {
    return { path: this.path, fileExists: this.fileExists, values: [...this.values], unknownKeys: [...this.unknownKeys] };
  }

  get<T = unknown>(key: string): T {
    return this.values.get(key)?.value as T;
  }
  str(key: string): string | null {
    const v = this.get(key);
    return typeof v === "string" && v !== "" ? v : null;
  }
  int(key: string): number {
    return Number(this.get(key));
  }
  /** A numeric key's value, or null when it is unset. */
  num(key: string): number | null {
    const v = this.get(key);
    return typeof v === "number" ? v : null;
  }
  list(key: string): string[] {
    const v = this.get(key);
    return Array.isArray(v) ? v.map(String) : [];
  }
  /** Records a value this process just wrote to the config file (the admin key made by `serve`). */
  noteWritten(key: string, value: unknown): void {
    this.values.set(key, { value, source: "file" });
  }

  source(key: string): ConfigSource {
    return this.values.get(key)?.source ?? "default";
  }

  /** Every key with its value, secrets shown only as set/unset. */
  redacted(): Record<string, { value: unknown; source: ConfigSource }> {
    const out: Record<string, { value: unknown; source: ConfigSource }> = {};
    for (const k of CONFIG_KEYS) {
      const v = this.values.get(k.key);
      if (!v) continue; // every key is loaded in the constructor
      out[k.key] = { value: k.secret ? (v.value == null || v.value === "" ? "unset" : "set") : v.value, source: v.source };
    }
    return out;
  }
}

export function configPath(env: Record<string, string | undefined> = process.env): string {
  if (env.INDX_CONFIG) return env.INDX_CONFIG;
  return join(configHome(currentPlatform(env)), "config.toml");
}

const ENV_FIRST = ["flag", "env", "file"] as const;
const FILE_FIRST = ["flag", "file", "env"] as const;

export function loadConfig(input: ConfigInput = {}): Config {
  const env = input.env ?? process.env;
  const path = configPath(env);
  const file = readConfigFile(path);
  const named = input.vaultName === undefined ? null : namedVaultTable(file.data, input.vaultName);
  // A named vault never borrows the default vault's data folder: "" means its own default one.
  const flags = named ? { ...input.flags, vault: named.path, data_dir: named.data_dir ?? "" } : input.flags;
  const values = new Map<string, { value: unknown; source: ConfigSource }>();
  for (const k of CONFIG_KEYS) {
    const envRaw = k.env ? env[k.env] : undefined;
    const candidates: Record<Exclude<ConfigSource, "default">, unknown> = {
      flag: flags?.[k.key] ?? undefined,
      env: envRaw === "" ? undefined : envRaw,
      file: (named && !k.key.startsWith("server.") ? getDotted(named, k.key) : undefined) ?? getDotted(file.data, k.key),
    };
    const order = k.precedence === "file" ? FILE_FIRST : ENV_FIRST;
    const source = order.find((s) => candidates[s] !== undefined);
    values.set(k.key, source ? loaded(k, candidates[source], source, input.repairing === k.key) : { value: k.default, source: "default" });
  }
  return new Config(path, file.exists, values, unknownKeysIn(file.data));
}

function loaded(k: ConfigKey, raw: unknown, source: Exclude<ConfigSource, "default">, repairing: boolean): { value: unknown; source: ConfigSource } {
  try {
    return { value: coerce(k, raw, source), source };
  } catch (err) {
    if (repairing && source !== "flag") return { value: k.default, source: "default" };
    throw err;
  }
}

/** A vault's name: what a URL segment and a CLI flag can carry unescaped. */
export const VAULT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The named vaults of the config file, by name, read afresh so a vault added while serving is seen. */
export function namedVaults(path: string = configPath()): Map<string, { path: string; data_dir?: string }> {
  const out = new Map<string, { path: string; data_dir?: string }>();
  const tables = readConfigFile(path).data.vaults;
  if (tables === null || typeof tables !== "object" || Array.isArray(tables)) return out;
  for (const [name, table] of Object.entries(tables)) {
    if (!VAULT_NAME.test(name) || table === null || typeof table !== "object") continue;
    const t = table as Record<string, unknown>;
    if (typeof t.path !== "string" || t.path === "") continue;
    out.set(name, { path: t.path, ...(typeof t.data_dir === "string" && t.data_dir !== "" ? { data_dir: t.data_dir } : {}) });
  }
  return out;
}

function namedVaultTable(data: Record<string, unknown>, name: string): Record<string, unknown> & { path: string; data_dir?: string } {
  const table = getDotted(data, `vaults.${name}`);
  if (!VAULT_NAME.test(name) || table === null || typeof table !== "object" || Array.isArray(table) || typeof (table as { path?: unknown }).path !== "string")
    throw new IndxError("not_found", `No vault named ${JSON.stringify(name.slice(0, 64))} in the config file.`);
  return table as Record<string, unknown> & { path: string; data_dir?: string };
}

/** Dotted keys of a parsed config file that are not configuration keys (tables that hold known keys are fine). */
export function unknownKeysIn(data: Record<string, unknown>, prefix = ""): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(data)) {
    const key = prefix + k;
    if (KEY_BY_NAME.has(key)) continue;
    // Named vaults hold their own path, data_dir and per-vault overrides (docs/decisions.md).
    if (key === "vaults" && prefix === "") continue;
    const isTable = v !== null && typeof v === "object" && !Array.isArray(v);
    if (isTable && CONFIG_KEYS.some((c) => c.key.startsWith(`${key}.`))) out.push(...unknownKeysIn(v as Record<string, unknown>, `${key}.`));
    else out.push(key);
  }
  return out;
}

function readConfigFile(path: string): { exists: boolean; data: Record<string, unknown> } {
  if (!existsSync(path)) return { exists: false, data: {} };
  try {
    return { exists: true, data: parseToml(readFileSync(path, "utf8")) as Record<string, unknown> };
  } catch (err) {
    const line = (err as { line?: number }).line;
    throw new IndxError("validation_failed", `The config file is not valid TOML${line ? ` (line ${line})` : ""}.`, {
      config: "config.toml",
    });
  }
}

function getDotted(obj: Record<string, unknown>, key: string): unknown {
  let cur: unknown = obj;
  for (const part of key.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function setDotted(obj: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split(".");
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === null || typeof next !== "object") cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  const last = parts.at(-1);
  if (last === undefined) return;
  if (value === null) delete cur[last];
  else cur[last] = value;
}

/** Turns a raw value (a flag string, an env string, a TOML value) into the key's type. */
export function coerce(k: ConfigKey, raw: unknown, from: ConfigSource | "input"): unknown {
  const bad = () => new IndxError("validation_failed", `Config key ${k.key} expects ${k.type} (from ${from}).`, { key: k.key, expected: k.type });
  switch (k.type) {
    case "string": {
      if (typeof raw !== "string") throw bad();
      const problem = raw === "" ? null : k.valueProblem?.(raw);
      if (problem)
        throw new IndxError("validation_failed", `Config key ${k.key}: ${JSON.stringify(raw)} ${problem} (from ${from}).`, {
          key: k.key,
          reason: "invalid_value",
        });
      return raw;
    }
    case "int": {
      const n = typeof raw === "number" ? raw : typeof raw === "string" && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < 0) throw bad();
      return n;
    }
    case "number": {
      const n = typeof raw === "number" ? raw : typeof raw === "string" && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isFinite(n) || n < 0) throw bad();
      return n;
    }
    case "bool":
      if (typeof raw === "boolean") return raw;
      if (typeof raw === "string" && /^(1|true|yes|on)$/i.test(raw)) return true;
      if (typeof raw === "string" && /^(0|false|no|off)$/i.test(raw)) return false;
      throw bad();
    case "list": {
      const items = Array.isArray(raw)
        ? raw.map(String)
        : typeof raw === "string"
          ? raw
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean)
          : null;
      if (!items) throw bad();
      for (const item of items) {
        const problem = k.itemProblem?.(item);
        if (problem)
          throw new IndxError("validation_failed", `Config key ${k.key}: ${JSON.stringify(item)} ${problem} (from ${from}).`, {
            key: k.key,
            reason: "invalid_item",
          });
      }
      return items;
    }
  }
}

/**
 * Writes one key into the user's config file (0600, atomic replace). The file is re-serialised
 * by smol-toml, so comments in it are not kept: documented in the README.
 */
export function writeConfigValue(path: string, key: string, raw: unknown): { value: unknown; previous: unknown } {
  const k = KEY_BY_NAME.get(key);
  if (!k) throw new IndxError("validation_failed", `Unknown config key: ${key}`, { key, known: CONFIG_KEYS.map((c) => c.key) });
  const value = raw === null || raw === "" ? null : coerce(k, raw, "input");
  if (typeof value === "string" && k.choices && !k.choices.includes(value))
    throw new IndxError("validation_failed", `Config key ${key} is one of ${k.choices.join(", ")} (got ${JSON.stringify(value)}).`, {
      key,
      expected: k.choices,
    });
  const data = readConfigFile(path).data;
  const previous = getDotted(data, key) ?? null;
  setDotted(data, key, value);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, `${stringifyToml(data)}\n`, 0o600);
  return { value, previous };
}
