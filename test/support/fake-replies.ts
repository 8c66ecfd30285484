/**
 * Scripted model replies for the AI operations that suggest per note (ai_tag, ai_metadata): the
 * note itself says what the fake model answers, so a test writes the model's behaviour into its
 * fixture. A passage line `Tags wanted: ops@0.9, Bad Tag!@0.8` makes the fake propose those tags
 * with those confidences (0.9 when left out), each citing that line; `Fields wanted: status=active;
 * due=2026-09-01` proposes those field values (JSON values are parsed: `n=3`, `l=["a","b"]`).
 */
import { type ChatReply, type FakeChat, parsePassages } from "./fake-chat.ts";

/** The first passage line starting with `prefix`, with its passage id. */
function wanted(chat: FakeChat, prefix: string): { passage: string; line: string; value: string } | null {
  const prompt = chat.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  for (const p of parsePassages(prompt))
    for (const line of p.text.split("\n")) if (line.startsWith(prefix)) return { passage: p.id, line: line.trim(), value: line.slice(prefix.length).trim() };
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
      return { tag, confidence, rationale: w!.line, citations: [{ passage: w!.passage, quote: w!.line }] };
    });
  return { content: { tags } };
}
/** Answers a metadata request from the note's `Fields wanted:` line; a field it does not name is null. */
export function metadataReplies(chat: FakeChat): ChatReply | undefined {
  if (!chat.system.includes("frontmatter fields")) return undefined;
  const w = wanted(chat, "Fields wanted:");
  const given = new Map<string, unknown>();
  for (const pair of w?.value.split(";") ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    const raw = pair.slice(eq + 1).trim();
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {}
    given.set(pair.slice(0, eq).trim(), value);
  }
  const props = ((chat.schema?.properties as Record<string, { properties?: Record<string, unknown> }> | undefined)?.fields?.properties ?? {}) as Record<
    string,
    unknown
  >;
  const fields = Object.fromEntries(
    Object.keys(props).map((key) => [
      key,
      given.has(key)
        ? { value: given.get(key), confidence: 0.9, rationale: w!.line, citations: [{ passage: w!.passage, quote: w!.line }] }
        : { value: null, confidence: 0, rationale: "not in the note", citations: [] },
    ]),
  );
  return { content: { fields } };
}
