/**
 * The chat side of the fake AI server: Ollama's /api/chat and OpenAI's /v1/chat/completions,
 * answered as the real servers answer (JSON, Ollama NDJSON streams, OpenAI SSE streams with a
 * final usage chunk), with replies a test scripts or a default shaped by the requested schema.
 *
 * The default reply follows the model-facing contract of the AI runtime: a schema property
 * `citations` (items with `passage` and `quote`) is filled from the `[P<n>] path § heading` passages of the
 * last user message, citing the passage with the most words in common with the rest of that
 * message and quoting one of its sentences verbatim; `supported` (boolean) says whether any passage
 * shares a word with it; a rerank prompt ("Query: …" and "[n] …" passages) is graded by overlap;
 * a relate prompt ("Source S: …", "C1: …" lines) relates each candidate sharing words with the source.
 */
import { fakeTokens } from "./fake-words.ts";

/** One scripted reply. Unset fields keep the default. */
export interface ChatReply {
  /** The reply text; an object or array is sent as its JSON. Default: shaped by the requested schema. */
  content?: string | Record<string, unknown> | unknown[];
  /** Ollama's done_reason and OpenAI's finish_reason. */
  finishReason?: "stop" | "length" | "content_filter";
  /** Token counts reported. Default: the words of the prompt and of the reply. null: none (a server that reports no usage). */
  usage?: { input: number; output: number } | null;
  /** Answer with this HTTP status and the protocol's error body. */
  status?: number;
  /** With status (a 429): the Retry-After header sent. */
  retryAfter?: string;
  /** Answer with this body instead of a protocol reply (e.g. an HTML error page); status 200 unless set. */
  rawBody?: string;
  /** Wait this long before answering, ms. */
  delayMs?: number;
  /** Never answer: the request stays open until the client gives up. */
  hang?: boolean;
  /** A streaming request gets the content in this many chunks (default 3)... */
  chunks?: number;
  /** ...this many ms apart. */
  chunkDelayMs?: number;
  /** Answer a streaming Ollama request in one piece, as a server that ignores `stream` would. */
  noStream?: boolean;
}

/** One chat request the fake received, with everything a test may assert on. */
export interface FakeChat {
  protocol: "ollama" | "openai";
  model: string | null;
  system: string;
  messages: { role: string; content: string }[];
  /** The system prompt and every message, joined: all the text that reached the provider. */
  text: string;
  stream: boolean;
  /** The requested JSON schema (Ollama `format`, OpenAI response_format), or null. */
  schema: Record<string, unknown> | null;
  maxTokens: number | null;
  temperature: number | null;
  seed: number | null;
  /** The Authorization header (OpenAI routes). */
  authorization: string | null;
}

export type ChatScript = (chat: FakeChat) => ChatReply | undefined;

type Json = Record<string, unknown>;

/** Reads a chat request body of either protocol. */
export function parseChat(protocol: "ollama" | "openai", body: Json, authorization: string | null): FakeChat {
  const all = (Array.isArray(body.messages) ? body.messages : []) as { role?: unknown; content?: unknown }[];
  const messages = all.map((m) => ({ role: String(m.role ?? ""), content: messageText(m.content) }));
  const options = (body.options ?? {}) as Json;
  const responseFormat = body.response_format as { json_schema?: { schema?: Json } } | undefined;
  const schema = protocol === "openai" ? (responseFormat?.json_schema?.schema ?? null) : typeof body.format === "object" ? (body.format as Json) : null;
  const num = (v: unknown) => (typeof v === "number" ? v : null);
  return {
    protocol,
    model: typeof body.model === "string" ? body.model : null,
    system: messages
      .filter((m) => m.role === "system")
      .map((m) => m.content)
      .join("\n"),
    messages: messages.filter((m) => m.role !== "system"),
    text: messages.map((m) => m.content).join("\n"),
    stream: body.stream === true,
    schema,
    maxTokens: num(protocol === "openai" ? (body.max_tokens ?? body.max_completion_tokens) : options.num_predict),
    temperature: num(protocol === "openai" ? body.temperature : options.temperature),
    seed: num(protocol === "openai" ? body.seed : options.seed),
    authorization,
  };
}

function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => String((p as { text?: unknown }).text ?? "")).join("");
  return "";
}

/** The protocol-faithful response to one chat request, given the reply to send. */
export async function chatResponse(chat: FakeChat, reply: ChatReply, signal: AbortSignal, includeUsage: boolean): Promise<Response> {
  if (reply.delayMs) await Bun.sleep(reply.delayMs);
  if (reply.hang) await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
  if (reply.rawBody !== undefined) return new Response(reply.rawBody, { status: reply.status ?? 200, headers: { "content-type": "text/html" } });
  if (reply.status)
    return Response.json(
      chat.protocol === "openai"
        ? { error: { message: "the fake server was scripted to fail", type: "server_error", code: null } }
        : { error: "the fake server was scripted to fail" },
      { status: reply.status, ...(reply.retryAfter ? { headers: { "retry-after": reply.retryAfter } } : {}) },
    );
  const value = reply.content ?? defaultContent(chat.schema, lastUserMessage(chat));
  const content = typeof value === "string" ? value : JSON.stringify(value);
  const usage = reply.usage === null ? null : (reply.usage ?? { input: wordCount(chat.text), output: wordCount(content) });
  const finish = reply.finishReason ?? "stop";
  if (!chat.stream)
    return chat.protocol === "openai" ? Response.json(openaiCompletion(chat, content, finish, usage)) : Response.json(ollamaDone(chat, content, finish, usage));
  const pieces = split(content, reply.chunks ?? 3);
  if (chat.protocol === "ollama") {
    if (reply.noStream)
      return new Response(`${JSON.stringify(ollamaDone(chat, content, finish, usage))}\n`, { headers: { "content-type": "application/x-ndjson" } });
    const lines = [...pieces.map((p) => ollamaPart(chat, p)), ollamaDone(chat, "", finish, usage)].map((l) => `${JSON.stringify(l)}\n`);
    return new Response(paced(lines, reply.chunkDelayMs ?? 0, signal), { headers: { "content-type": "application/x-ndjson" } });
  }
  const events = [...openaiChunks(chat, pieces, finish), ...(includeUsage && usage ? [openaiUsageChunk(chat, usage)] : [])].map(
    (e) => `data: ${JSON.stringify(e)}\n\n`,
  );
  events.push("data: [DONE]\n\n");
  return new Response(paced(events, reply.chunkDelayMs ?? 0, signal), { headers: { "content-type": "text/event-stream" } });
}

/** A body that sends each piece `delayMs` after the previous one (a slow model). */
function paced(pieces: string[], delayMs: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    async start(controller) {
      for (const [i, piece] of pieces.entries()) {
        if (i > 0 && delayMs) await Bun.sleep(delayMs);
        if (signal.aborted) return;
        controller.enqueue(encoder.encode(piece));
      }
      controller.close();
    },
  });
}

function split(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

function lastUserMessage(chat: FakeChat): string {
  return chat.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
}

const created = () => new Date().toISOString();

function ollamaPart(chat: FakeChat, content: string): Json {
  return { model: chat.model, created_at: created(), message: { role: "assistant", content }, done: false };
}

function ollamaDone(chat: FakeChat, content: string, finish: string, usage: { input: number; output: number } | null): Json {
  return {
    model: chat.model,
    created_at: created(),
    message: { role: "assistant", content },
    done: true,
    done_reason: finish,
    total_duration: 1,
    load_duration: 0,
    ...(usage ? { prompt_eval_count: usage.input, eval_count: usage.output } : {}),
  };
}

const openaiBase = (chat: FakeChat) => ({ id: "chatcmpl-fake", created: Math.floor(Date.now() / 1000), model: chat.model });

function openaiCompletion(chat: FakeChat, content: string, finish: string, usage: { input: number; output: number } | null): Json {
  return {
    ...openaiBase(chat),
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finish }],
    ...(usage ? { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } } : {}),
  };
}

function openaiChunks(chat: FakeChat, pieces: string[], finish: string): Json[] {
  const chunk = (delta: Json, finish_reason: string | null) => ({
    ...openaiBase(chat),
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason }],
  });
  return [...pieces.map((p, i) => chunk(i === 0 ? { role: "assistant", content: p } : { content: p }, null)), chunk({}, finish)];
}

function openaiUsageChunk(chat: FakeChat, usage: { input: number; output: number }): Json {
  return {
    ...openaiBase(chat),
    object: "chat.completion.chunk",
    choices: [],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

// --- the default reply -------------------------------------------------------------------------

interface Grounding {
  /** The passage to cite and the sentence of it to quote; null without passages. */
  cite: { passage: string; quote: string } | null;
  /** Some passage shares a content word with the question. */
  supported: boolean;
}

/** A value shaped like the requested schema; plain "ok" without one. */
function defaultContent(schema: Json | null, prompt: string): unknown {
  if (!schema) return "ok";
  const props = (schema.properties ?? {}) as Record<string, Json>;
  if (props.scores) return gradeRerank(prompt);
  if (isRelateList(props.edges)) return relateEdges(prompt);
  return fill(schema, ground(prompt));
}

function fill(s: Json, g: Grounding): unknown {
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const variants = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (variants?.length) return fill(variants[0]!, g);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const t = types.find((x) => x !== "null");
  if (t === "object") {
    const props = (s.properties ?? {}) as Record<string, Json>;
    return Object.fromEntries(
      Object.entries(props).map(([k, v]) => {
        if (k === "citations" && isCitationList(v)) return [k, g.cite ? [g.cite] : []];
        if (k === "supported" && v.type === "boolean") return [k, g.supported];
        return [k, fill(v, g)];
      }),
    );
  }
  if (t === "array") return s.items ? [fill(s.items as Json, g)] : [];
  if (t === "number" || t === "integer") return typeof s.minimum === "number" ? s.minimum : 0;
  if (t === "boolean") return false;
  return g.cite?.quote ?? "ok";
}

function isCitationList(s: Json): boolean {
  const props = ((s.items as Json | undefined)?.properties ?? {}) as Json;
  return s.type === "array" && "passage" in props && "quote" in props;
}

/** One passage of a prompt as src/ai/passages.ts renders it. */
export interface PromptPassage {
  id: string;
  path: string;
  heading: string | null;
  text: string;
}

/**
 * The passages of a prompt: each starts with a header line `[P3] path § heading`, runs to the next
 * header or to the `[end of passages]` line; text outside any passage (instructions, a group's
 * tags, a key point of a reduce step) is left out.
 */
export function parsePassages(prompt: string): PromptPassage[] {
  const out: PromptPassage[] = [];
  let current: { id: string; path: string; heading: string | null; lines: string[] } | null = null;
  const close = () => {
    if (current) out.push({ id: current.id, path: current.path, heading: current.heading, text: current.lines.join("\n") });
    current = null;
  };
  for (const line of prompt.split("\n")) {
    const header = /^\[(P\d+)\] (.*)$/.exec(line);
    if (header) {
      close();
      const [path, heading] = header[2]!.split(" § ");
      current = { id: header[1]!, path: path!, heading: heading ?? null, lines: [] };
    } else if (line === "[end of passages]") close();
    else current?.lines.push(line.replace(/^\\(\[P\d+\]|\[end of passages\])/, "$1"));
  }
  close();
  return out;
}

/** The prompt's text that is not inside a passage: the question or the task. */
function outsidePassages(prompt: string): string {
  let inside = false;
  const out: string[] = [];
  for (const line of prompt.split("\n")) {
    if (/^\[P\d+\] /.test(line)) inside = true;
    else if (line === "[end of passages]") inside = false;
    else if (!inside) out.push(line);
  }
  return out.join("\n");
}

/** Cites the passage with the most words in common with the rest of the prompt (the question or task). */
function ground(prompt: string): Grounding {
  const passages = parsePassages(prompt);
  const question = outsidePassages(prompt);
  if (passages.length === 0) return { cite: null, supported: false };
  const scored = passages.map((p) => ({ p, shared: shared(question, p.text) }));
  const best = scored.reduce((a, b) => (b.shared > a.shared ? b : a));
  return { cite: { passage: best.p.id, quote: bestSentence(best.p.text, question) }, supported: best.shared > 0 };
}

/** A verbatim sentence of the text: the one sharing most words with the question, preferring real sentences over headings. */
function bestSentence(text: string, question: string): string {
  const sentences = (text.match(/[^.!?\n]+[.!?]?/g) ?? []).map((s) => s.trim()).filter((s) => fakeTokens(s).length > 0);
  if (sentences.length === 0) return text.trim();
  const rank = (s: string) => shared(question, s) * 10 + Math.min(fakeTokens(s).length, 3);
  return sentences.reduce((a, b) => (rank(b) > rank(a) ? b : a));
}

function shared(a: string, b: string): number {
  const tb = new Set(fakeTokens(b));
  return new Set(fakeTokens(a).filter((t) => tb.has(t))).size;
}

function overlap(a: string, b: string): number {
  const qa = new Set(fakeTokens(a));
  return qa.size === 0 ? 0 : shared(a, b) / qa.size;
}

/** Grades "[n] …" passages against the "Query: …" line by word overlap (0–10). */
function gradeRerank(prompt: string): { scores: { id: string; relevance: number }[] } {
  const query = /Query:\s*(.*)/.exec(prompt)?.[1] ?? "";
  const scores: { id: string; relevance: number }[] = [];
  const re = /^\[(\d+)\]\s*([\s\S]*?)(?=^\[\d+\]|$(?![\s\S]))/gm;
  for (let m = re.exec(prompt); m; m = re.exec(prompt)) scores.push({ id: m[1]!, relevance: Math.round(overlap(query, m[2]!) * 100) / 10 });
  return { scores };
}

// --- ai_relate --------------------------------------------------------------------------------

function isRelateList(s: Json | undefined): boolean {
  const props = ((s?.items as Json | undefined)?.properties ?? {}) as Json;
  return s?.type === "array" && "candidate" in props && "relation" in props;
}

/**
 * A relate reply: each candidate sharing content words with the source is related, labelled
 * `cites` when the prompt says the source links it (and cites is offered), else with the first label
 * offered; its confidence is the share of the smaller note's words the two have in common, and it
 * quotes the best sentence of each note.
 */
function relateEdges(prompt: string): { edges: Json[] } {
  const passages = parsePassages(prompt);
  const source = /^Source S: (.+)$/m.exec(prompt)?.[1] ?? "";
  const labels = (/^Relations: (.+)$/m.exec(prompt)?.[1] ?? "same_topic").split(", ");
  const of = (path: string) => passages.filter((p) => p.path === path);
  const mine = of(source);
  const mineText = mine.map((p) => p.text).join("\n");
  const edges: Json[] = [];
  for (const m of prompt.matchAll(/^(C\d+): (.+?)( \(the source links to it\))?$/gm)) {
    const theirs = of(m[2]!);
    const theirText = theirs.map((p) => p.text).join("\n");
    const common = shared(mineText, theirText);
    if (common === 0 || mine.length === 0 || theirs.length === 0) continue;
    const smaller = Math.min(new Set(fakeTokens(mineText)).size, new Set(fakeTokens(theirText)).size);
    const citations = [quoteOf(mine, theirText), quoteOf(theirs, mineText)];
    edges.push({
      candidate: m[1],
      relation: m[3] && labels.includes("cites") ? "cites" : labels[0],
      confidence: Math.round((common / Math.max(1, smaller)) * 100) / 100,
      // An honest model's rationale: what the source says, in its words (a rationale is grounded like any prose).
      rationale: citations[0]!.quote,
      citations,
    });
  }
  return { edges };
}

/** The passage sharing most words with `other`, and its best sentence of at least 12 characters. */
function quoteOf(passages: { id: string; text: string }[], other: string): { passage: string; quote: string } {
  const best = passages.reduce((a, b) => (shared(other, b.text) > shared(other, a.text) ? b : a));
  const sentences = (best.text.match(/[^.!?\n]+[.!?]?/g) ?? []).map((s) => s.trim()).filter((s) => s.length >= 12);
  const quote = sentences.length ? sentences.reduce((a, b) => (shared(other, b) > shared(other, a) ? b : a)) : best.text.trim();
  return { passage: best.id, quote };
}
