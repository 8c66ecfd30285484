/**
 * Scripted model replies for the AI operations that suggest per note (ai_tag, ai_metadata): the
 * note itself says what the fake model answers, so a test writes the model's behaviour into its
 * fixture. A passage line `Tags wanted: ops@0.9, Bad Tag!@0.8` makes the fake propose those tags
 * with those confidences (0.9 when left out), each citing that line; `Fields wanted: status=active;
 * due=2026-09-01` proposes those field values (JSON values are parsed: `n=3`, `l=["a","b"]`).
 */
import type { ChatReply, FakeChat } from "./fake-chat.ts";

const PASSAGE = /<passage\s+id="([^"]+)"[^>]*>\n?([\s\S]*?)\n?<\/passage>/g;

/** The first passage line starting with `prefix`, with its passage id. */
function wanted(chat: FakeChat, prefix: string): { passage: string; line: string; value: string } | null {
  const prompt = chat.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  for (const m of prompt.matchAll(PASSAGE))
    for (const line of m[2]!.split("\n")) if (line.startsWith(prefix)) return { passage: m[1]!, line: line.trim(), value: line.slice(prefix.length).trim() };
  return null;
}

/** Answers a tag request from the note's `Tags wanted:` line; no line, no tags. */
export function tagReplies(chat: FakeChat): ChatReply | undefined {
  if (!chat.system.includes("suggest tags")) return undefined;
  const w = wanted(chat, "Tags wanted:");
  const tags = (w?.value.split(",") ?? [])
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const at = item.lastIndexOf("@");
      const [tag, confidence] = at > 0 ? [item.slice(0, at), Number(item.slice(at + 1))] : [item, 0.9];
      return { tag, confidence, rationale: `the note asks for ${tag}`, citations: [{ passage: w!.passage, quote: w!.line }] };
    });
  return { content: { tags } };
}
