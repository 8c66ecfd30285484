import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConfigSource, loadConfig } from "../../../src/config/load.ts";
import { aiRoles, aiSettings, chatSettings, embeddingsSettings } from "../../../src/providers/settings.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A configuration from a TOML file (possibly empty) and an environment. */
function cfg(toml: string, env: Record<string, string> = {}, flags: Record<string, unknown> = {}) {
  const d = mkdtempSync(join(tmpdir(), "indx-ai-settings-"));
  dirs.push(d);
  const path = join(d, "config.toml");
  writeFileSync(path, toml);
  return loadConfig({ env: { HOME: d, INDX_CONFIG: path, ...env }, flags });
}

const OLLAMA = { INDX_AI_PROVIDER: "ollama", INDX_AI_MODEL: "llama3.2" };

describe("AI settings: which source wins", () => {
  // [key, file TOML, env, expected value, expected source]
  const table: [string, string, Record<string, string>, unknown, ConfigSource][] = [
    // Tuning knobs: the file wins over the environment.
    ["ai.temperature", "[ai]\ntemperature = 0.7", { INDX_AI_TEMPERATURE: "0.2" }, 0.7, "file"],
    ["ai.max_output_tokens", "[ai]\nmax_output_tokens = 512", { INDX_AI_MAX_OUTPUT_TOKENS: "1024" }, 512, "file"],
    ["ai.max_input_tokens", "[ai]\nmax_input_tokens = 8000", { INDX_AI_MAX_INPUT_TOKENS: "16000" }, 8000, "file"],
    ["ai.allow_globs", '[ai]\nallow_globs = ["Projects/**"]', { INDX_AI_ALLOW_GLOBS: "**/*.md" }, ["Projects/**"], "file"],
    ["ai.deny_globs", '[ai]\ndeny_globs = ["Private/**"]', { INDX_AI_DENY_GLOBS: "Journal/**" }, ["Private/**"], "file"],
    // ... and the environment still applies when the file is silent.
    ["ai.temperature", "", { INDX_AI_TEMPERATURE: "0.2" }, 0.2, "env"],
    ["ai.deny_globs", "", { INDX_AI_DENY_GLOBS: "Journal/**, Private/**" }, ["Journal/**", "Private/**"], "env"],
    // Safety knobs and credentials: the environment wins over the file.
    ["ai.enabled", "[ai]\nenabled = true", { INDX_AI_ENABLED: "false" }, false, "env"],
    ["ai.enabled", "[ai]\nenabled = false", {}, false, "file"],
    ["ai.provider", '[ai]\nprovider = "openai"', { INDX_AI_PROVIDER: "ollama" }, "ollama", "env"],
    ["ai.gateway_key", '[ai]\ngateway_key = "from-file"', { INDX_AI_GATEWAY_KEY: "from-env" }, "from-env", "env"],
    ["ai.daily_cost_usd", "[ai]\ndaily_cost_usd = 5", { INDX_AI_DAILY_COST_USD: "0.5" }, 0.5, "env"],
    ["ai.cache.enabled", "[ai.cache]\nenabled = true", { INDX_AI_CACHE: "off" }, false, "env"],
  ];
  for (const [key, toml, env, value, source] of table)
    test(`${key}: ${source} wins (${JSON.stringify(env)})`, () => {
      const c = cfg(toml, env);
      expect(c.get(key)).toEqual(value);
      expect(c.source(key)).toBe(source);
    });

  test("a flag wins over both, also for a key whose file wins over the environment", () => {
    const c = cfg("[ai]\ntemperature = 0.7", { INDX_AI_TEMPERATURE: "0.2" }, { "ai.temperature": "1" });
    expect(c.get("ai.temperature")).toBe(1);
    expect(c.source("ai.temperature")).toBe("flag");
  });

  test("the resolved settings follow the same rules", () => {
    const s = aiSettings(cfg("[ai]\ntemperature = 0.7\nmax_output_tokens = 512\n[ai.cache]\nttl_hours = 1.5", { ...OLLAMA, INDX_AI_MAX_OUTPUT_TOKENS: "99" }));
    expect(s).toMatchObject({ temperature: 0.7, maxOutputTokens: 512, cache: { enabled: true, ttlSeconds: 5400 } });
    expect(s.chat).toMatchObject({ temperature: 0.7, maxOutputTokens: 512 });
  });
});

describe("AI settings: values", () => {
  test("defaults", () => {
    const s = aiSettings(cfg(""));
    expect(s).toEqual({
      enabled: true,
      chat: null,
      embeddings: null,
      maxInputTokens: 64000,
      maxOutputTokens: 2048,
      temperature: 0,
      allowGlobs: [],
      denyGlobs: [],
      cache: { enabled: true, ttlSeconds: 86400 },
      dailyCostUsd: null,
      timeoutMs: 30000,
    });
  });

  test("a number that is not one is validation_failed naming the key", () => {
    expect(() => cfg("", { INDX_AI_DAILY_COST_USD: "lots" })).toThrow(/ai.daily_cost_usd expects number/);
    expect(() => cfg("", { INDX_AI_TEMPERATURE: "-1" })).toThrow(/ai.temperature/);
  });

  test("ai.enabled = false turns every role off in the matrix but keeps what is configured visible", () => {
    const s = aiSettings(cfg("[ai]\nenabled = false", { ...OLLAMA, INDX_EMBEDDINGS_PROVIDER: "ollama", INDX_EMBEDDINGS_MODEL: "nomic-embed-text" }));
    expect(s.enabled).toBe(false);
    expect(s.chat?.model).toBe("llama3.2");
    expect(aiRoles(s)).toBe("none");
  });

  test("the degradation matrix: none, embeddings only, chat only, both", () => {
    const emb = { INDX_EMBEDDINGS_PROVIDER: "ollama", INDX_EMBEDDINGS_MODEL: "nomic-embed-text" };
    expect(aiRoles(aiSettings(cfg("")))).toBe("none");
    expect(aiRoles(aiSettings(cfg("", emb)))).toBe("embeddings_only");
    expect(aiRoles(aiSettings(cfg("", OLLAMA)))).toBe("chat_only");
    // The chat role takes the embeddings provider when INDX_AI_PROVIDER is unset.
    expect(aiRoles(aiSettings(cfg("", { ...emb, INDX_AI_MODEL: "llama3.2" })))).toBe("both");
  });

  test("vercel-ai-gateway: its key is required and secret; its URL has a default and can be pointed elsewhere", () => {
    const gw = { INDX_AI_PROVIDER: "vercel-ai-gateway", INDX_AI_MODEL: "anthropic/claude-haiku-4-5" };
    expect(() => chatSettings(cfg("", gw))).toThrow(/INDX_AI_GATEWAY_KEY/);
    const c = cfg("", { ...gw, INDX_AI_GATEWAY_KEY: "vck_secret" });
    expect(chatSettings(c)).toMatchObject({
      provider: "vercel-ai-gateway",
      baseUrl: "https://ai-gateway.vercel.sh/v1",
      apiKey: "vck_secret",
      price: { source: "builtin", input: 1, output: 5 },
    });
    expect(JSON.stringify(c.redacted())).not.toContain("vck_secret");
    expect(c.redacted()["ai.gateway_key"]!.value).toBe("set");
    expect(chatSettings(cfg("", { ...gw, INDX_AI_GATEWAY_KEY: "k", INDX_AI_GATEWAY_URL: "http://127.0.0.1:9/v1/" }))?.baseUrl).toBe("http://127.0.0.1:9/v1");
  });

  test("the gateway serves the chat role only", () => {
    expect(() => embeddingsSettings(cfg("", { INDX_EMBEDDINGS_PROVIDER: "vercel-ai-gateway", INDX_EMBEDDINGS_MODEL: "m" }))).toThrow(/ollama, openai \(/);
    expect(() => chatSettings(cfg("", { INDX_AI_PROVIDER: "bedrock", INDX_AI_MODEL: "m" }))).toThrow(/ollama, openai, vercel-ai-gateway/);
  });

  test("record and replay are exclusive; the fixtures folder is optional", () => {
    expect(chatSettings(cfg("", { ...OLLAMA, AI_TEST_REPLAY: "1" }))?.fixtures).toEqual({ mode: "replay", dir: null });
    expect(chatSettings(cfg("", { ...OLLAMA, AI_TEST_RECORD: "1", INDX_AI_FIXTURES_DIR: "/tmp/fx" }))?.fixtures).toEqual({ mode: "record", dir: "/tmp/fx" });
    expect(chatSettings(cfg("", OLLAMA))?.fixtures).toBeNull();
    expect(() => chatSettings(cfg("", { ...OLLAMA, AI_TEST_RECORD: "1", AI_TEST_REPLAY: "1" }))).toThrow(/cannot both/);
  });
});
