/**
 * The embeddings provider of a benchmark: the one the environment configures
 * (INDX_EMBEDDINGS_PROVIDER, INDX_EMBEDDINGS_MODEL, INDX_OLLAMA_URL / INDX_OPENAI_BASE_URL …),
 * so a real Ollama is measured where one is reachable; with BENCH_EMBEDDINGS=use, a real model that
 * runs offline (scripts/bench/use-shim.ts); otherwise the fake server of the tests (random indexing
 * of words: its semantic figures are a smoke test, not a quality measure).
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
  const real = process.env.BENCH_EMBEDDINGS === "use";
  const script = real ? join(ROOT, "scripts", "bench", "use-shim.ts") : join(ROOT, "test", "support", "fake-ai-server.ts");
  const child = Bun.spawn(["bun", script], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the fake server did not start");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const url = text.trim();
  const model = real ? "use-en" : fakeModel;
  return {
    env: { INDX_EMBEDDINGS_PROVIDER: "ollama", INDX_EMBEDDINGS_MODEL: model, INDX_OLLAMA_URL: url },
    label: real ? "use-shim/use-en (Universal Sentence Encoder, offline)" : `fake/${fakeModel}`,
    fake: !real,
    stop: () => child.kill(),
  };
}
