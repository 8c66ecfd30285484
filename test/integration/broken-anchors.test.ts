import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type RunningServer, startServer } from "../../src/http/serve.ts";
import { linkBrokenAnchors, linkForward, linkUnresolved } from "../../src/links/ops.ts";
import { assertRestOutput, invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * Links whose note resolves but whose #heading, #A#B path or #^block does not exist
 * (docs/obsidian.md, Anchors), on fixtures/anchors: missing headings and blocks written on
 * purpose, compared with an independent reading of the same files written below.
 */
const FIXTURE = join(import.meta.dir, "..", "..", "fixtures", "anchors");

let sb: Sandbox;
let ctx: App;

beforeAll(async () => {
  sb = sandbox();
  cpSync(FIXTURE, sb.vault, { recursive: true });
  ctx = sb.context();
  await ctx.updateIndex({ build: true });
});

afterAll(() => {
  ctx.close();
  sb.cleanup();
});

describe("broken anchors", () => {
  test("link_broken_anchors lists exactly the links the independent reading finds broken", async () => {
    const expected = independentReading(FIXTURE).filter((l) => !l.resolves);
    const out = await invoke(linkBrokenAnchors, ctx, { limit: 1000 });
    expect(out.anchors.map((a) => `${a.source}:${a.line} ${a.raw}`).sort()).toEqual(expected.map((l) => l.id).sort());
    // The fixture holds 15 on purpose: 11 heading paths (missing, out of order, too shallow) and 4 blocks.
    expect(out.total).toBe(15);
    expect(out.anchors.filter((a) => a.kind === "block").map((a) => a.subpath)).toEqual(["#^nothing", "#^item-2", "#^def-3", "#^nope"]);
  });

  test("each forward link says whether its anchor resolves, as the independent reading does", async () => {
    const reading = independentReading(FIXTURE);
    for (const source of new Set(reading.map((l) => l.source))) {
      const out = await invoke(linkForward, ctx, { path: source });
      const got = out.links.filter((l) => l.anchor_resolved !== undefined).map((l) => `${source}:${l.line} ${l.raw} ${l.anchor_resolved}`);
      const want = reading.filter((l) => l.source === source).map((l) => `${l.id} ${l.resolves}`);
      expect(got.sort()).toEqual(want.sort());
    }
  });

  test("a link without an anchor, or to a missing note, has no anchor_resolved; a missing note is unresolved instead", async () => {
    const out = await invoke(linkForward, ctx, { path: "Index.md" });
    expect(out.links.find((l) => l.raw === "[[Manual]]")!.anchor_resolved).toBeUndefined();
    const missing = out.links.find((l) => l.raw === "[[Missing note#Heading]]")!;
    expect(missing.resolved).toBe(false);
    expect(missing.anchor_resolved).toBeUndefined();
    expect((await invoke(linkUnresolved, ctx, {})).unresolved.map((u) => u.linkpath)).toEqual(["Missing note"]);
  });

  test("pages with a cursor", async () => {
    const first = await invoke(linkBrokenAnchors, ctx, { limit: 10 });
    expect(first.anchors).toHaveLength(10);
    const rest = await invoke(linkBrokenAnchors, ctx, { limit: 10, cursor: first.next_cursor! });
    expect(rest.anchors).toHaveLength(5);
    expect(rest.next_cursor).toBeNull();
  });

  test("over REST", async () => {
    const server: RunningServer = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {} });
    try {
      const token = loadConfig({ env: sb.env }).str("server.api_key")!;
      const res = await fetch(`${server.url}/v1/links/broken-anchors?limit=2`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { ok: boolean; data: { total: number; anchors: unknown[] } };
      assertRestOutput("GET", "/v1/links/broken-anchors?limit=2", body);
      expect(res.status).toBe(200);
      expect(body.data.total).toBe(15);
      expect(body.data.anchors).toHaveLength(2);
    } finally {
      await server.stop();
    }
  });
});

interface AnchoredLink {
  source: string;
  /** `source:line raw`. */
  id: string;
  resolves: boolean;
}

/**
 * An independent reading of a small vault of ATX headings, fenced code and plain links (what the
 * fixture uses): every link with an anchor into an existing note, and whether the anchor exists,
 * following Obsidian's rules as its help states them.
 */
function independentReading(root: string): AnchoredLink[] {
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith(".md")).map((f) => f.replaceAll("\\", "/"));
  const texts = new Map(files.map((f) => [f, readFileSync(join(root, f), "utf8").split("\n")]));
  const comparable = (s: string) =>
    s
      .replace(/[!"#$%&()*+,.:;<=>?@^`{|}~/[\]\\]/g, " ")
      .replace(/\s+/g, " ")
      .trim()
      .toLowerCase();
  const outline = new Map<string, { headings: { level: number; key: string }[]; blocks: Set<string> }>();
  for (const [file, lines] of texts) {
    const headings: { level: number; key: string }[] = [];
    const blocks = new Set<string>();
    eachBodyLine(lines, (line) => {
      const h = /^(#{1,6})[ \t]+(.+?)[ \t]*$/.exec(line);
      if (h) headings.push({ level: h[1]!.length, key: comparable(h[2]!) });
      const b = /(?:^|\s)\^([A-Za-z0-9-]+)$/.exec(line);
      if (b) blocks.add(b[1]!.toLowerCase());
    });
    outline.set(file, { headings, blocks });
  }
  const byName = (name: string) => files.find((f) => basename(f, ".md").toLowerCase() === basename(name, ".md").toLowerCase());
  const found: AnchoredLink[] = [];
  for (const [file, lines] of texts) {
    lines.forEach((raw, i) => {
      if (insideFence(lines, i)) return;
      const line = raw.replace(/`[^`]*`/g, (m) => " ".repeat(m.length));
      const links = [
        ...[...line.matchAll(/!?\[\[([^\]]+?)\]\]/g)].map((m) => ({ raw: m[0], href: m[1]!.split("|")[0]!.trim() })),
        ...[...line.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => ({ raw: m[0], href: decodeURI(m[1]!) })),
      ];
      for (const { raw: text, href } of links) {
        const hash = href.indexOf("#");
        if (hash < 0) continue;
        const target = hash === 0 ? file : byName(href.slice(0, hash));
        if (!target) continue;
        const parts = href
          .slice(hash)
          .split("#")
          .filter((p) => p !== "");
        const note = outline.get(target)!;
        let resolves: boolean;
        if (parts.length === 1 && parts[0]!.startsWith("^")) resolves = note.blocks.has(parts[0]!.slice(1).toLowerCase());
        else {
          let next = 0;
          let level = 0;
          for (const h of note.headings) {
            if (next < parts.length && h.level > level && h.key === comparable(parts[next]!)) {
              level = h.level;
              next++;
            }
          }
          resolves = next === parts.length;
        }
        found.push({ source: file, id: `${file}:${i + 1} ${text}`, resolves });
      }
    });
  }
  return found;
}

/** Calls `fn` with each line outside frontmatter and fenced code. */
function eachBodyLine(lines: string[], fn: (line: string) => void): void {
  const bodyStart = lines[0] === "---" ? lines.indexOf("---", 1) + 1 : 0;
  lines.forEach((line, i) => {
    if (i >= bodyStart && !insideFence(lines, i)) fn(line);
  });
}

/** True for a fence line or a line between fence lines. */
function insideFence(lines: string[], at: number): boolean {
  let open = false;
  for (let i = 0; i <= at; i++) {
    if (lines[i]!.startsWith("```")) {
      if (i === at) return true;
      open = !open;
    }
  }
  return open;
}
