/**
 * The fake AI server of scripts/bench/ai-stall.ts, in a process of its own so that writing a
 * 1 MB reply never holds up the prober that measures the server. Prints its URL. An extract
 * request gets 20 values of BENCH_PATTERN_A a's and a b; an ask whose question names a size
 * ("… 1000000 bytes") gets an answer of that many bytes in 1,000 pieces.
 */
import { startFakeAiServer } from "../../test/support/fake-ai-server.ts";

const a = Number(process.env.BENCH_PATTERN_A ?? 26);
const fake = startFakeAiServer({ ollamaRules: process.env.BENCH_LENIENT_OLLAMA !== "1" });
fake.onChat((chat) => {
  const props = (chat.schema?.properties ?? {}) as Record<string, unknown>;
  if ("data" in props) return { content: { data: Array.from({ length: 20 }, () => `${"a".repeat(a)}b`), confidence: 0.9, citations: [] } };
  const bytes = Number(/(\d+) bytes/.exec(chat.text)?.[1] ?? 0);
  if ("answer" in props && bytes)
    return {
      content: { answer: "word ".repeat(Math.ceil(bytes / 5)), supported: false, confidence: "low", citations: [], followups: [] },
      chunks: Math.max(1000, Math.ceil(bytes / 65_536)),
    };
  return undefined;
});
console.log(fake.url);
