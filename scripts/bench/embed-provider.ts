/**
 * The embeddings provider of a benchmark: the one the environment configures
 * (INDX_EMBEDDINGS_PROVIDER, INDX_EMBEDDINGS_MODEL, INDX_OLLAMA_URL / INDX_OPENAI_BASE_URL …),
 * so a real Ollama is measured where one is reachable; otherwise the fake server of the tests
 * (random indexing of words: its semantic figures are a smoke test, not a quality measure).
 */
import { join } from "node:path";
import { ROOT } from "./common.ts";

export interface BenchProvider {
  env: Record<string, string>;
  label: string;
  /** True when the fake server answers (in its own process, so its CPU is not counted here). */
  fake: boolean;
  stop(): void;
}

export async function benchProvider(fakeModel = "fake-embed-768"): Promise<BenchProvider> {
  const keys = [
    "INDX_EMBEDDINGS_PROVIDER",
    "INDX_EMBEDDINGS_MODEL",
    "INDX_OLLAMA_URL",
    "INDX_OPENAI_BASE_URL",
    "INDX_OPENAI_API_KEY",
    "INDX_EMBEDDINGS_BATCH_SIZE",
    "INDX_EMBEDDINGS_CONCURRENCY",
    "INDX_AI_PROVIDER",
    "INDX_AI_MODEL",
  ];
  if (process.env.INDX_EMBEDDINGS_PROVIDER) {
    const env: Record<string, string> = {};
    for (const k of keys) if (process.env[k]) env[k] = process.env[k]!;
    return { env, label: `${env.INDX_EMBEDDINGS_PROVIDER}/${env.INDX_EMBEDDINGS_MODEL ?? "?"}`, fake: false, stop() {} };
  }
  const child = Bun.spawn(["bun", join(ROOT, "test", "support", "fake-ai-server.ts")], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the fake server did not start");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const url = text.trim();
  return {
    env: { INDX_EMBEDDINGS_PROVIDER: "ollama", INDX_EMBEDDINGS_MODEL: fakeModel, INDX_OLLAMA_URL: url },
    label: `fake/${fakeModel}`,
    fake: true,
    stop: () => child.kill(),
  };
}
