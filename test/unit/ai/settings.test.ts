import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config/load.ts";
import { chatSettings, embeddingsSettings } from "../../../src/providers/settings.ts";
import { checkVectors, classifyError } from "../../../src/providers/types.ts";

const cfg = (env: Record<string, string>) => loadConfig({ env: { HOME: "/nonexistent", INDX_CONFIG: "/nonexistent/config.toml", ...env } });

describe("provider settings", () => {
  test("not configured is null", () => {
    expect(embeddingsSettings(cfg({}))).toBeNull();
    expect(chatSettings(cfg({}))).toBeNull();
  });

  test("ollama with defaults; the chat role falls back to the embeddings provider", () => {
    const c = cfg({ INDX_EMBEDDINGS_PROVIDER: "ollama", INDX_EMBEDDINGS_MODEL: "nomic-embed-text", INDX_AI_MODEL: "llama3.2" });
    expect(embeddingsSettings(c)).toMatchObject({
      provider: "ollama",
      model: "nomic-embed-text",
      baseUrl: "http://127.0.0.1:11434",
      batchSize: 64,
      concurrency: 2,
    });
    expect(chatSettings(c)).toMatchObject({ provider: "ollama", model: "llama3.2" });
  });

  test("openai needs a base URL; the key comes from the environment", () => {
    expect(() => embeddingsSettings(cfg({ INDX_EMBEDDINGS_PROVIDER: "openai", INDX_EMBEDDINGS_MODEL: "m" }))).toThrow(/INDX_OPENAI_BASE_URL/);
    const s = embeddingsSettings(
      cfg({ INDX_EMBEDDINGS_PROVIDER: "openai", INDX_EMBEDDINGS_MODEL: "m", INDX_OPENAI_BASE_URL: "http://127.0.0.1:1/v1/", INDX_OPENAI_API_KEY: "k" }),
    );
    expect(s).toMatchObject({ provider: "openai", baseUrl: "http://127.0.0.1:1/v1", apiKey: "k" });
  });

  test("a half or wrong configuration is an actionable error", () => {
    expect(() => embeddingsSettings(cfg({ INDX_EMBEDDINGS_PROVIDER: "ollama" }))).toThrow(/INDX_EMBEDDINGS_MODEL/);
    expect(() => embeddingsSettings(cfg({ INDX_EMBEDDINGS_PROVIDER: "vertex", INDX_EMBEDDINGS_MODEL: "m" }))).toThrow(/ollama, openai/);
  });
});

describe("provider errors", () => {
  test("statuses map to kinds; only transient ones are retried", () => {
    expect(classifyError({ status_code: 404, message: 'model "x" not found' }, "t").kind).toBe("model_missing");
    expect(classifyError({ status_code: 404, message: "404 page not found" }, "t").kind).toBe("rejected");
    expect(classifyError({ status: 413 }, "t").kind).toBe("too_large");
    expect(classifyError({ status: 503 }, "t").retryable).toBe(true);
    expect(classifyError({ status: 401 }, "t").retryable).toBe(false);
  });

  test("malformed vectors are refused", () => {
    expect(() => checkVectors([[1, 2]], 2, "t")).toThrow(/expected 2/);
    expect(() => checkVectors([[1, 2], [1]], 2, "t")).toThrow(/malformed/);
    expect(() => checkVectors([[1, Number.NaN]], 1, "t")).toThrow(/malformed/);
    expect(checkVectors([[1, 2]], 1, "t")).toEqual([[1, 2]]);
  });
});
