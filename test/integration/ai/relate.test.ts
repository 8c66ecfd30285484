import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { aiRelate } from "../../../src/ai/ops/relate/relate-ops.ts";
import type { App } from "../../../src/app/context.ts";
import { vaultReindex } from "../../../src/maintenance/ops.ts";
import { notePatch } from "../../../src/notes/write-ops.ts";
import type { OpContext } from "../../../src/ops/context.ts";
import type { OutputOf } from "../../../src/ops/define.ts";
import { estimateTokens } from "../../../src/providers/tokens.ts";
import { type FakeAiServer, fakeChatEnv, fakeEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";
import { type FakeChat, parsePassages } from "../../support/fake-chat.ts";
import { invoke, rejection } from "../../support/ops.ts";
import { type Sandbox, sandbox } from "../../support/vault.ts";

/** ai_relate in process against the fake chat and embeddings server. */
const NOTES: Record<string, string> = {
  "Garden/Tomatoes.md":
    "# Tomatoes\n\nTomato plants need full sunlight, warm soil and regular watering through the summer.\n\nSee [[Watering]] for the schedule.\n",
  "Garden/Watering.md": "# Watering\n\nWater the tomato plants early in the morning so the soil stays warm and the leaves dry before night.\n",
  "Garden/Tomatoes copy.md":
    "# Tomatoes\n\nTomato plants need full sunlight, warm soil and regular watering through the summer.\n\nSee [[Watering]] for the schedule.\n",
  "Kitchen/Sauce.md": "# Tomato sauce\n\nSimmer ripe tomatoes from the garden with garlic and olive oil for an hour.\n",
  "Kitchen/Bread.md": "# Sourdough\n\nA sourdough starter ferments flour and water for days before the dough is baked.\n",
  "Private/Secret.md": "# Secret tomatoes\n\nTomato plants in the swordfish garden need full sunlight and warm soil.\n",
};

type Out = OutputOf<typeof aiRelate>;
type Edge = Out["edges"][number];

let fake: FakeAiServer;
const open: { sb: Sandbox; ctx: App }[] = [];

beforeAll(() => {
  fake = startFakeAiServer();
});
afterEach(() => {
  for (const o of open.splice(0)) {
    o.ctx.close();
    o.sb.cleanup();
  }
  fake.reset();
});
afterAll(() => fake.stop());

const EMBEDDINGS = () => fakeEnv(fake, "ollama", "fake-embed-128");
const CHAT = () => fakeChatEnv(fake);

/** A fresh vault of NOTES (plus `files`), indexed (and embedded) with `env`; Private/ is deny-globbed. */
async function vault(env: Record<string, string>, files: Record<string, string> = {}): Promise<{ sb: Sandbox; ctx: App }> {
  const sb = sandbox({ ...NOTES, ...files });
  Object.assign(sb.env, env, { INDX_AI_DENY_GLOBS: "Private/**", INDX_SEARCH_VECTOR_WEIGHT: "1" });
  const ctx = sb.context();
  await invoke(vaultReindex, ctx, {});
  open.push({ sb, ctx });
  return { sb, ctx };
}

const relate = (ctx: OpContext, input: Record<string, unknown>) =>
  invoke(aiRelate, ctx, { source: { kind: "path", path: "Garden/Tomatoes.md" }, cache: false, ...input }) as Promise<Out>;

const codes = (o: { warnings: { code: string }[] }) => o.warnings.map((w) => w.code);
const pairOf = (e: Edge) => `${e.src_path} -> ${e.dst_path}`;

/** The seed's order: confidence, then similarity, both descending, then dst_path. */
function inOrder(edges: readonly Edge[]): boolean {
  return edges.every((e, i) => {
    const next = edges[i + 1];
    if (!next) return true;
    const [a, b] = [e.confidence ?? -1, next.confidence ?? -1];
    return a > b || (a === b && (e.similarity > next.similarity || (e.similarity === next.similarity && e.dst_path <= next.dst_path)));
  });
}

/** The candidate ids of a relate prompt, by path. */
function candidateIds(chat: FakeChat): Map<string, string> {
  return new Map([...chat.text.matchAll(/^(C\d+): (.+?)(?: \(the source links to it\))?$/gm)].map((m) => [m[2]!, m[1]!]));
}

/** The passage ids of a prompt, by path, with a quotable line of each. */
function passagesByPath(chat: FakeChat): Map<string, { id: string; line: string }> {
  const out = new Map<string, { id: string; line: string }>();
  for (const p of parsePassages(chat.text)) {
    const line = p.text.split("\n").find((l) => l.trim().length >= 30);
    if (line && !out.has(p.path)) out.set(p.path, { id: p.id, line: line.trim() });
  }
  return out;
}

describe("with a chat model and embeddings", () => {
  test("types each neighbour with a label, a confidence, a rationale and quotes verified in both notes", async () => {
    const { ctx } = await vault({ ...EMBEDDINGS(), ...CHAT() });
    const out = await relate(ctx, {});
    expect(out.scope_resolved).toEqual({ sources: ["Garden/Tomatoes.md"], candidates_considered: 5 });
    expect(out.edges.map((e) => e.dst_path)).toContain("Garden/Watering.md");
    for (const e of out.edges) {
      expect(e.relation).toBeDefined();
      expect(e.confidence).toBeGreaterThan(0);
      expect(e.rationale).toBeTruthy();
      expect(e.similarity).toBeGreaterThanOrEqual(0);
      expect(e.similarity).toBeLessThanOrEqual(1);
      expect(e.evidence.length).toBeGreaterThan(0);
      for (const c of e.evidence) expect([e.src_path, e.dst_path]).toContain(c.path);
    }
    // The fake labels a candidate the prompt says the source links to as `cites`.
    expect(out.edges.find((e) => e.dst_path === "Garden/Watering.md")!.relation).toBe("cites");
    // Bread shares no word with the source: the model left it out.
    expect(out.edges.map((e) => e.dst_path)).not.toContain("Kitchen/Bread.md");
    expect(inOrder(out.edges)).toBe(true);
    expect(out.usage.input_tokens).toBeGreaterThan(0);
    expect(out.proposed_patches).toBeUndefined();
    // One request for the one source, which listed the neighbours by id and never the denied note.
    expect(fake.chats).toHaveLength(1);
    expect(fake.chats[0]!.text).toContain("C1: ");
    expect(fake.chats[0]!.text).not.toContain("swordfish");
    expect(out.edges.map((e) => e.dst_path)).not.toContain("Private/Secret.md");
  });

  test("several sources: one request each, and a pair of sources is related once", async () => {
    const { ctx } = await vault({ ...EMBEDDINGS(), ...CHAT() });
    const out = await relate(ctx, { source: { kind: "paths", paths: ["Garden/Watering.md", "Garden/Tomatoes.md"] } });
    expect(out.scope_resolved.sources).toEqual(["Garden/Tomatoes.md", "Garden/Watering.md"]);
    expect(fake.chats).toHaveLength(2);
    const between = out.edges.filter((e) => [e.src_path, e.dst_path].sort().join() === "Garden/Tomatoes.md,Garden/Watering.md");
    expect(between).toHaveLength(1);
    expect(between[0]!.src_path).toBe("Garden/Tomatoes.md");
    // Watering's request no longer offers Tomatoes, already related from the other side.
    expect(candidateIds(fake.chats[1]!).has("Garden/Tomatoes.md")).toBe(false);
    expect(new Set(out.edges.map(pairOf)).size).toBe(out.edges.length);
  });

  test("the order is confidence, similarity, dst_path, and the same on every run", async () => {
    const { ctx } = await vault({ ...EMBEDDINGS(), ...CHAT() });
    // Every neighbour at one confidence: similarity, then the path, decide.
    fake.onChat((chat) => {
      const quotes = passagesByPath(chat);
      const src = quotes.get("Garden/Tomatoes.md")!;
      return {
        content: {
          edges: [...candidateIds(chat)].reverse().map(([, id]) => ({
            candidate: id,
            relation: "same_topic",
            confidence: 0.5,
            rationale: "Both are about the garden.",
            citations: [{ passage: src.id, quote: src.line }],
          })),
        },
      };
    });
    const first = await relate(ctx, {});
    const again = await relate(ctx, {});
    expect(first.edges.length).toBeGreaterThanOrEqual(3);
    expect(first.edges.every((e) => e.confidence === 0.5)).toBe(true);
    expect(inOrder(first.edges)).toBe(true);
    expect(first.edges.map((e) => e.similarity)).toEqual([...first.edges.map((e) => e.similarity)].sort((a, b) => b - a));
    expect(again.edges).toEqual(first.edges);
  });

  test("an unknown label, an unknown note and quotes from passages never sent are dropped with warnings", async () => {
    const { ctx } = await vault({ ...EMBEDDINGS(), ...CHAT() });
    const reply = (chat: FakeChat) => {
      const ids = candidateIds(chat);
      const quotes = passagesByPath(chat);
      const water = ids.get("Garden/Watering.md")!;
      const good = quotes.get("Garden/Watering.md")!;
      return {
        content: {
          edges: [
            { candidate: water, relation: "inspires", confidence: 0.9, rationale: "Not a label.", citations: [{ passage: good.id, quote: good.line }] },
            { candidate: "C9", relation: "extends", confidence: 0.9, rationale: "Not a candidate.", citations: [{ passage: good.id, quote: good.line }] },
            {
              candidate: ids.get("Kitchen/Sauce.md")!,
              relation: "same_topic",
              confidence: 0.8,
              rationale: "Cites a passage never sent.",
              citations: [{ passage: "P99", quote: good.line }],
            },
            // A real quote, but from a note outside the pair: no evidence for it.
            {
              candidate: ids.get("Garden/Tomatoes copy.md")!,
              relation: "duplicates",
              confidence: 0.8,
              rationale: "Quotes another note.",
              citations: [{ passage: good.id, quote: good.line }],
            },
            { candidate: water, relation: "depends_on", confidence: 0.7, rationale: "The schedule.", citations: [{ passage: good.id, quote: good.line }] },
          ],
        },
      };
    };
    fake.onChat(reply);
    const out = await relate(ctx, {});
    expect(out.edges.map((e) => [e.dst_path, e.relation])).toEqual([["Garden/Watering.md", "depends_on"]]);
    expect(codes(out)).toEqual(expect.arrayContaining(["relation_invalid", "citation_invalid", "ungrounded_dropped"]));

    // With cite off, the edge whose quotes all failed stays, without evidence.
    const loose = await relate(ctx, { cite: false });
    const sauce = loose.edges.find((e) => e.dst_path === "Kitchen/Sauce.md")!;
    expect(sauce.relation).toBe("same_topic");
    expect(sauce.evidence).toEqual([]);
  });

  test("relations narrow the labels offered, threshold drops low confidence", async () => {
    const { ctx } = await vault({ ...EMBEDDINGS(), ...CHAT() });
    const narrowed = await relate(ctx, { relations: ["same_topic", "extends"] });
    expect(fake.chats[0]!.text).toContain("Relations: same_topic, extends");
    expect(narrowed.edges.length).toBeGreaterThan(0);
    expect(new Set(narrowed.edges.map((e) => e.relation))).toEqual(new Set(["same_topic"]));
    const all = await relate(ctx, {});
    const cut = await relate(ctx, { threshold: 0.5 });
    expect(all.edges.some((e) => e.confidence! < 0.5)).toBe(true);
    expect(cut.edges).toEqual(all.edges.filter((e) => e.confidence! >= 0.5));
  });

  test("a repeat is a cache hit; an edit to a neighbour makes it a miss", async () => {
    const { sb, ctx } = await vault({ ...EMBEDDINGS(), ...CHAT() });
    const input = { cache: true, top_k: 3 };
    const first = await relate(ctx, input);
    const hit = await relate(ctx, input);
    expect(fake.chats).toHaveLength(1);
    expect(codes(hit)).toContain("ai_cache_hit");
    expect(hit.edges).toEqual(first.edges);
    sb.write("Garden/Watering.md", `${NOTES["Garden/Watering.md"]}\nWater deeply once a week in dry spells.\n`);
    await ctx.updateIndex({ paths: ["Garden/Watering.md"] });
    const miss = await relate(ctx, input);
    expect(codes(miss)).not.toContain("ai_cache_hit");
    expect(fake.chats).toHaveLength(2);
  });
});

describe("without a chat model", () => {
  test("a fixed rule labels: cites for a linked note, duplicates for a copy; chat_unavailable, no request", async () => {
    const { ctx } = await vault(EMBEDDINGS());
    const out = await relate(ctx, {});
    const byDst = new Map(out.edges.map((e) => [e.dst_path, e]));
    const cites = byDst.get("Garden/Watering.md")!;
    expect(cites).toMatchObject({ relation: "cites", confidence: 1 });
    expect(cites.evidence).toEqual([expect.objectContaining({ path: "Garden/Tomatoes.md", line: 5, snippet: "[[Watering]]" })]);
    const copy = byDst.get("Garden/Tomatoes copy.md")!;
    expect(copy.similarity).toBe(1);
    expect(copy).toMatchObject({ relation: "duplicates", confidence: 1 });
    // Unrelated neighbours get no label under the rule, so they are not edges.
    expect(byDst.has("Kitchen/Bread.md")).toBe(false);
    expect(codes(out)).toContain("chat_unavailable");
    expect(inOrder(out.edges)).toBe(true);
    expect(fake.chats).toHaveLength(0);

    // Without `duplicates` on offer the copy is the same topic; without classification, nothing is labelled.
    const narrowed = await relate(ctx, { relations: ["same_topic"] });
    expect(narrowed.edges.map((e) => [e.dst_path, e.relation])).toEqual([["Garden/Tomatoes copy.md", "same_topic"]]);
    const plain = await relate(ctx, { classify: false });
    expect(plain.edges.map((e) => e.dst_path)).toContain("Kitchen/Bread.md");
    expect(plain.edges.every((e) => e.relation === undefined && e.confidence === undefined)).toBe(true);
    expect(codes(plain)).not.toContain("chat_unavailable");
    expect(inOrder(plain.edges)).toBe(true);
  });

  test("chat without embeddings: lexical neighbours with embeddings_unavailable; neither role: ai_unavailable", async () => {
    const { ctx } = await vault(CHAT());
    const out = await relate(ctx, {});
    expect(codes(out)).toContain("embeddings_unavailable");
    expect(out.edges.map((e) => e.dst_path)).toContain("Garden/Watering.md");
    expect(out.edges.every((e) => e.relation !== undefined)).toBe(true);

    const none = await vault({});
    const sent = fake.requests.length;
    const err = await rejection(relate(none.ctx, {}));
    expect(err.code).toBe("ai_unavailable");
    expect(err.details).toMatchObject({ required_role: "embeddings" });
    expect(fake.requests).toHaveLength(sent);
  });
});

describe("budgets", () => {
  test("a long note is cut to its share of ai.max_input_tokens; a budget too small for any note is ai_input_too_large, unsent", async () => {
    const beds = Array.from({ length: 300 }, (_, i) => `Tomato plants in bed ${i} need full sunlight, warm soil and regular watering.`);
    const { ctx } = await vault({ ...EMBEDDINGS(), ...CHAT(), INDX_AI_MAX_INPUT_TOKENS: "1200" }, { "Garden/Beds.md": `# Beds\n\n${beds.join("\n\n")}\n` });
    const out = await relate(ctx, { source: { kind: "path", path: "Garden/Beds.md" }, top_k: 3 });
    expect(fake.chats).toHaveLength(1);
    expect(estimateTokens(fake.chats[0]!.text)).toBeLessThanOrEqual(1200);
    expect(fake.chats[0]!.text).not.toContain("bed 299");
    expect(out.edges.length).toBeGreaterThan(0);

    const small = await vault({ ...CHAT(), INDX_AI_MAX_INPUT_TOKENS: "300" });
    const err = await rejection(relate(small.ctx, {}));
    expect(err.code).toBe("ai_input_too_large");
    expect(fake.chats).toHaveLength(1);
  });
});

describe("sources and candidates", () => {
  test("the AI globs apply before anything is read: a denied source is not_found, a denied candidate is globs_excluded", async () => {
    const { ctx } = await vault({ ...EMBEDDINGS(), ...CHAT() });
    const denied = await rejection(relate(ctx, { source: { kind: "path", path: "Private/Secret.md" } }));
    expect(denied.code).toBe("not_found");
    expect(fake.chats).toHaveLength(0);
    const out = await relate(ctx, { candidates: { kind: "glob", path_glob: "{Private,Kitchen}/**" } });
    expect(codes(out)).toContain("globs_excluded");
    expect(out.scope_resolved.candidates_considered).toBe(2);
    for (const e of out.edges) expect(e.dst_path.startsWith("Kitchen/")).toBe(true);
    for (const chat of fake.chats) expect(chat.text).not.toContain("swordfish");
  });

  test("more sources than one call takes is validation_failed", async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`Many/Note ${i}.md`, `# Note ${i}\n\nA note about tomatoes number ${i}.\n`]));
    const { ctx } = await vault(CHAT(), many);
    const err = await rejection(relate(ctx, { source: { kind: "glob", path_glob: "Many/**" } }));
    expect(err.code).toBe("validation_failed");
    expect(err.details).toMatchObject({ field: "source", notes: 51, max: 50 });
    expect(fake.chats).toHaveLength(0);
  });
});

describe("propose_links", () => {
  test("drafts a Related section linking what the source does not link yet; applying the draft links it", async () => {
    // A `#` in a path cannot be linked (Obsidian reads it as a heading): that note gets no draft.
    const { sb, ctx } = await vault(
      { ...EMBEDDINGS(), ...CHAT() },
      { "Garden/Tomato #2.md": "# Tomato two\n\nTomato plants need full sunlight and warm soil.\n" },
    );
    const before = await Bun.file(`${sb.vault}/Garden/Tomatoes.md`).text();
    const out = await relate(ctx, { propose_links: true });
    expect(out.proposed_patches).toHaveLength(1);
    const patch = out.proposed_patches![0]!;
    expect(patch.path).toBe("Garden/Tomatoes.md");
    // Watering is linked already: no draft for it.
    expect(patch.related_to).not.toContain("Garden/Watering.md");
    expect(out.edges.map((e) => e.dst_path)).toContain("Garden/Tomato #2.md");
    expect(patch.related_to).toEqual(out.edges.filter((e) => !["Garden/Watering.md", "Garden/Tomato #2.md"].includes(e.dst_path)).map((e) => e.dst_path));
    expect(patch.ops).toEqual([
      { op: "append_body", markdown: `\n## Related\n\n${patch.related_to.map((p) => `- [[${p.split("/").pop()!.slice(0, -3)}]]`).join("\n")}\n` },
    ]);
    // Never applied.
    expect(await Bun.file(`${sb.vault}/Garden/Tomatoes.md`).text()).toBe(before);

    await invoke(notePatch, ctx.forCall({ scopes: new Set(["vault:read", "vault:write"]) }), { path: patch.path, if_match: patch.if_match, ops: patch.ops });
    const linked = ctx.index.links.forward("Garden/Tomatoes.md").map((l) => l.target);
    for (const target of patch.related_to) expect(linked).toContain(target);
    // Related again, the source links everything: no draft is left to propose.
    const again = await relate(ctx, { propose_links: true });
    expect(again.proposed_patches).toEqual([]);
  });

  test("follows useMarkdownLinks and newLinkFormat, and appends to an existing Related section", async () => {
    const { sb, ctx } = await vault(EMBEDDINGS(), {
      ".obsidian/app.json": JSON.stringify({ useMarkdownLinks: true, newLinkFormat: "relative" }),
      "Kitchen/Salsa.md":
        "# Salsa\n\nFresh salsa: chopped tomatoes, onion, lime and coriander.\n\n## Related\n\n- [Sauce](Sauce.md)\n\n## Serving\n\nWith tortilla chips.\n",
      "Garden/Salsa copy.md":
        "# Salsa\n\nFresh salsa: chopped tomatoes, onion, lime and coriander.\n\n## Related\n\n- [Sauce](Sauce.md)\n\n## Serving\n\nWith tortilla chips.\n",
    });
    const out = await relate(ctx, { source: { kind: "path", path: "Kitchen/Salsa.md" }, propose_links: true, classify: false, top_k: 3 });
    const patch = out.proposed_patches![0]!;
    expect(patch.related_to).not.toContain("Kitchen/Sauce.md");
    expect(patch.related_to).toContain("Garden/Salsa copy.md");
    const op = patch.ops[0]!;
    expect(op).toMatchObject({ op: "append_to_section", heading: "Related" });
    expect((op as { markdown: string }).markdown).toContain("- [Salsa copy](../Garden/Salsa%20copy.md)");
    await invoke(notePatch, ctx.forCall({ scopes: new Set(["vault:read", "vault:write"]) }), { path: patch.path, if_match: patch.if_match, ops: patch.ops });
    const text = await Bun.file(`${sb.vault}/Kitchen/Salsa.md`).text();
    expect(text.indexOf("../Garden/Salsa%20copy.md")).toBeLessThan(text.indexOf("## Serving"));
    expect(ctx.index.links.forward("Kitchen/Salsa.md").map((l) => l.target)).toContain("Garden/Salsa copy.md");
  });
});
