import { IndxError } from "../core/errors.ts";
import type { Warning } from "../ops/schemas.ts";
import { type ConfigKey, KEY_BY_NAME, PATH_KEYS } from "./keys.ts";
import { type Config, writeConfigValue } from "./load.ts";

/** Who sets a key: a person with the CLI on the machine itself, or a REST or MCP caller. */
export type Setter = "local" | "remote";

/**
 * Why a key cannot be set over REST or MCP, or null when it can (docs/decisions.md,
 * "vault_config_set"). An admin token reaches the notes, not the machine: it may tune how indx
 * searches and reads, but not which folders it opens, how the server is reached and guarded, or
 * where notes and credentials are sent.
 */
export function remoteRefusal(k: ConfigKey): string | null {
  if (PATH_KEYS.has(k.key)) return "it is a path on the server's machine";
  if (k.key.startsWith("server.")) return "it decides how the server is reached and guarded";
  if (k.key.endsWith("_url")) return "it decides where notes and credentials are sent";
  if (k.key.startsWith("ai.test_")) return "it is a switch for tests";
  return null;
}

export interface ConfigChange {
  key: string;
  /** As stored in the file; null when the key was removed. */
  value: unknown;
  /** What the file held before; null when it did not set the key. */
  previous: unknown;
  warnings: Warning[];
}

/**
 * The one way a configuration key is written (vault_config_set, `indx config set`): a known key,
 * a value of its type (null or "" removes it), never a secret, and only the keys a remote caller
 * may change when the caller is remote. The configuration of the running process stays as it was
 * loaded; the file is read when indx next starts.
 */
export function setConfigValue(config: Config, key: string, raw: unknown, setter: Setter): ConfigChange {
  const k = KEY_BY_NAME.get(key);
  if (!k) throw new IndxError("validation_failed", `Unknown config key: ${key}. vault_config_get lists the keys.`, { key, reason: "unknown_key" });
  if (k.secret)
    throw new IndxError("validation_failed", `${key} is a secret: set it with its environment variable ${k.env ?? ""} or edit the config file.`, {
      key,
      reason: "secret",
    });
  const refusal = setter === "remote" ? remoteRefusal(k) : null;
  if (refusal)
    throw new IndxError("forbidden", `${key} can be set only with \`indx config set\` on the machine itself: ${refusal}.`, { key, reason: "local_only" });
  const { value, previous } = writeConfigValue(config.path, key, raw);
  const overridden = value !== null && config.source(key) === "env" && k.precedence !== "file";
  const warnings: Warning[] = overridden
    ? [{ code: "config_overridden", message: `${k.env} is set in the environment and wins over the config file for ${key}.` }]
    : [];
  return { key, value, previous, warnings };
}
