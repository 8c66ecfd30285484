/**
 * The rules the fake Ollama holds requests to, as the real one does (docs/decisions.md, "Ollama:
 * num_ctx sized to the prompt"):
 *
 * - Context: a model gets 4,096 tokens unless the request sends `options.num_ctx`, and a longer
 *   prompt is cut from the front without an error (the reply's prompt_eval_count shows it). The
 *   fake counts a token per four characters, about what a real BPE does on English.
 * - Grammar: `format` becomes a llama.cpp grammar, which is refused when a repetition times the
 *   elements it repeats reaches 2,000 (llama-grammar.cpp, MAX_REPETITION_THRESHOLD): a string's
 *   `maxLength: n` is `char{0,n}`, an array's `maxItems: n` is `("," item){0,n-1}`.
 */
import type { FakeChat } from "./fake-chat.ts";

export const OLLAMA_DEFAULT_NUM_CTX = 4096;
const GRAMMAR_REPETITION_LIMIT = 2000;
const CHARS_PER_TOKEN = 4;

/** What the fake Ollama did with one chat request's context. */
export interface OllamaContext {
  /** The num_ctx in force: the request's, else 4096. */
  numCtx: number;
  /** Whether the request sent num_ctx at all. */
  sent: boolean;
  /** The prompt's tokens before truncation. */
  promptTokens: number;
  /** Whether the front of the prompt was cut off. */
  truncated: boolean;
}

const contexts = new WeakMap<FakeChat, OllamaContext>();

/** The context the fake Ollama applied to a chat request it received (undefined for OpenAI requests). */
export const ollamaContextOf = (chat: FakeChat): OllamaContext | undefined => contexts.get(chat);

export const fakeTokenCount = (text: string): number => Math.ceil(text.length / CHARS_PER_TOKEN);

/**
 * Applies Ollama's context to a parsed chat: past num_ctx, the front of the prompt (the system
 * message first, then the messages in order) is dropped, so the "model" answers from what is left.
 */
export function applyOllamaContext(chat: FakeChat, options: Record<string, unknown>): OllamaContext {
  const sent = typeof options.num_ctx === "number";
  const numCtx = sent ? (options.num_ctx as number) : OLLAMA_DEFAULT_NUM_CTX;
  const parts = [chat.system, ...chat.messages.map((m) => m.content)];
  const promptTokens = parts.reduce((n, p) => n + fakeTokenCount(p), 0);
  const context = { numCtx, sent, promptTokens, truncated: promptTokens > numCtx };
  contexts.set(chat, context);
  if (!context.truncated) return context;
  let drop = (promptTokens - numCtx) * CHARS_PER_TOKEN;
  const cut = (text: string): string => {
    const gone = Math.min(drop, text.length);
    drop -= gone;
    return text.slice(gone);
  };
  chat.system = cut(chat.system);
  chat.messages = chat.messages.map((m) => ({ ...m, content: cut(m.content) }));
  chat.text = [chat.system, ...chat.messages.map((m) => m.content)].filter(Boolean).join("\n");
  return context;
}

/** Why llama.cpp would refuse the grammar of this schema, or null when it compiles. */
export function grammarProblem(schema: unknown, at = ""): string | null {
  if (Array.isArray(schema)) {
    for (const [i, s] of schema.entries()) {
      const p = grammarProblem(s, `${at}/${i}`);
      if (p) return p;
    }
    return null;
  }
  if (typeof schema !== "object" || schema === null) return null;
  for (const [key, value] of Object.entries(schema)) {
    const cost = repetition(key, value);
    if (cost >= GRAMMAR_REPETITION_LIMIT) return `${at || "/"} ${key} ${String(value)}: number of repetitions exceeds sane defaults`;
    const p = grammarProblem(value, `${at}/${key}`);
    if (p) return p;
  }
  return null;
}

function repetition(keyword: string, bound: unknown): number {
  if (typeof bound !== "number") return 0;
  if (keyword === "maxLength" || keyword === "minLength") return bound;
  if (keyword === "maxItems" || keyword === "minItems") return 3 * Math.max(0, bound - 1);
  return 0;
}

/** Ollama's answer to a format whose grammar does not compile: a 500 from the runner. */
export function grammarRefusal(problem: string): Response {
  return Response.json({ error: `failed to parse grammar: ${problem}` }, { status: 500 });
}

/** The fake Ollama's checks of one /api/chat request: a refusal to send, or null after applying the context. */
export function ollamaChatRules(chat: FakeChat, body: Record<string, unknown>): Response | null {
  const problem = chat.schema ? grammarProblem(chat.schema) : null;
  if (problem) return grammarRefusal(problem);
  applyOllamaContext(chat, (body.options ?? {}) as Record<string, unknown>);
  return null;
}
