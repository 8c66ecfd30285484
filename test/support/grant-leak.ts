import type { TSchema } from "@sinclair/typebox";
import type { Route } from "../../src/http/routes.ts";
import type { AnyOperation } from "../../src/ops/define.ts";
import { PATH_MARK } from "../../src/ops/schemas.ts";

/**
 * The leak suite's vault (docs/permissions.md): a token granted read `Projects/**`, write
 * `Inbox/**`, deny `Projects/Secret/**` sees four notes. Every other file holds a canary — a
 * word `zq<kind><nn>` — in its path, body, title, tags, links, headings, block ids and
 * frontmatter, and the word "zebra", which no visible note has. Visible notes never name a
 * hidden one, so any canary in an answer is a leak.
 */
export const GRANT = { read: ["Projects/**"], write: ["Inbox/**"], deny: ["Projects/Secret/**"] };

export const CANARY = /zq[a-z]+\d\d|zebra|Personal\/|Journal\/|Projects\/Secret/i;

const hidden = (n: string) =>
  `---\ntitle: zqtitle${n}\nzqkey${n}: zqvalue${n}\ntags: [shared, zqtag${n}]\naliases: [zqalias${n}]\nup: "[[Alpha]]"\n---\n# zqhead${n}\n\nzebra zqcanary${n} lives here. See [[Alpha]], [[Linked]], [[zqlink${n}]], [[Beta#zqanchor${n}]] and #zqtag${n}.\n\n- [ ] zqtask${n}\n\nA paragraph. ^zqblock${n}\n`;

export const VISIBLE_NOTES = ["Inbox/Draft.md", "Inbox/Linked.md", "Projects/Alpha.md", "Projects/Beta.md"];

export const LEAK_FILES: Record<string, string | Uint8Array> = {
  "Projects/Alpha.md":
    "---\ntags: [shared, proj]\nstatus: active\n---\n# Alpha\n\nAlpha plan links [[Beta]] and ![[Beta#Goals]]. Alpha words.\n\n- [ ] task one\n",
  "Projects/Beta.md": "# Beta\n\n## Goals\n\nBeta goals link [[Alpha]] and [[Missing note]]. #shared\n\nSee [[Plain]], [[Plain#Inside]] and ![[Plain]].\n",
  "Projects/Board.canvas": JSON.stringify({ nodes: [{ id: "a", type: "file", file: "Projects/Alpha.md", x: 0, y: 0, width: 200, height: 100 }], edges: [] }),
  "Projects/All.base": "views:\n  - type: table\n    name: All\n",
  "Inbox/Draft.md": "# Draft\n\nAn inbox draft about Alpha. [[Alpha]]\n",
  "Inbox/Linked.md": "# Linked\n\nA note hidden notes link to.\n",
  "Projects/Secret/Plan zqcanary09.md": hidden("09"),
  "Personal/Diary zqcanary01.md": hidden("01"),
  "Journal/2026-01-01 zqcanary02.md": hidden("02"),
  "zqcanary03 Root.md": hidden("03"),
  "Personal/zqcanary04 Board.canvas": JSON.stringify({
    nodes: [{ id: "zqnode04", type: "text", text: "zebra zqcanary04", x: 0, y: 0, width: 200, height: 100 }],
    edges: [],
  }),
  "Personal/zqcanary05.base": "views:\n  - type: table\n    name: zqview05\n",
  "Personal/zqcanary06 pic.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]),
  "Personal/Empty zqcanary07.md": "zebra zqcanary07\n",
  // A hidden note whose name has no canary, linked and embedded from a visible one: its path is the canary.
  "Personal/Plain.md": `${hidden("10")}\n## Inside\n\nzebra again.\n`,
  "Personal/Note with ![[embed]] zqcanary08.md": `${hidden("08")}\n![[Draft]]\n`,
  // Daily notes land in the writable folder from a hidden template: the daily_note prompt must not name it.
  ".obsidian/daily-notes.json": JSON.stringify({ folder: "Inbox", template: "Personal/zqcanary13 Daily" }),
  "Personal/zqcanary13 Daily.md": hidden("13"),
};

/** Paths inputs name: hidden ones (the targeted inputs), a visible one, a writable one. */
export const PATH_POOL = [
  "Personal/Diary zqcanary01.md",
  "Personal/Diary zqcanary01",
  "Projects/Secret/Plan zqcanary09.md",
  "zqcanary03 Root.md",
  "Personal/zqcanary04 Board.canvas",
  "Personal/zqcanary05.base",
  "Personal/zqcanary06 pic.png",
  "Personal/Diary zqcanary01.md#0",
  "Projects/Alpha.md",
  "Projects/Alpha.md#0",
  "Projects/Beta.md",
  "Inbox/Draft.md",
  // Missing, where the grant reads: a did-you-mean must not reach for the hidden near-misses.
  "Projects/Plain.md",
  "Projects/Diary zqcanary01.md",
  "Plain",
  // Missing, where the grant writes: a write's errors must not name the hidden near-miss either.
  "Inbox/Plain.md",
];

let keySeq = 0;

/** Strings by the field's name: what a caller would send, never a canary of its own making beyond paths. */
function stringFor(name: string, schema: TSchema): string {
  if (schema.const !== undefined) return String(schema.const);
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  if (/glob/.test(name)) return "**";
  if (/^(q|query|question|text|prompt)$/.test(name)) return "alpha goals";
  if (/tag|^from$|^to$|prefix/.test(name)) return "shared";
  if (/folder/.test(name)) return "Personal";
  if (/date/.test(name)) return "2026-01-01";
  if (/^(tz)$/.test(name)) return "UTC";
  if (/body|markdown|content/.test(name)) return "# New\n\nwritten by the leak suite\n";
  if (name === "idempotency_key") return `leak-${(keySeq++).toString(36)}`;
  if (/key/.test(name)) return "status";
  if (/where/.test(name)) return "true";
  if (/name/.test(name)) return "leak.png";
  if (/base64/.test(name)) return "aGk=";
  if (/id$/.test(name)) return "Personal/Diary zqcanary01.md#0";
  return "alpha";
}

type Mode = "paths" | "query" | "bare";
const QUERY_FIELDS = new Set(["q", "query", "question", "glob", "path_glob", "tag", "prefix"]);

/** A schema's marked path field (src/ops/schemas.ts), seen through Optional and unions. */
const isPath = (schema: TSchema): boolean => !!schema[PATH_MARK] || ((schema.items as TSchema | undefined) ? isPath(schema.items as TSchema) : false);

/** One value of a schema; `path` is what every marked path field gets in this variant. */
function sample(schema: TSchema, name: string, path: string, mode: Mode, depth = 0): unknown {
  if (depth > 8) return undefined;
  if (schema[PATH_MARK]) return path || "Projects/Alpha.md";
  const alts = (schema.anyOf ?? schema.oneOf) as TSchema[] | undefined;
  if (alts) {
    const pick = alts.find((a) => a.type !== "null") ?? alts[0];
    return pick ? sample(pick, name, path, mode, depth + 1) : null;
  }
  if (schema.const !== undefined) return schema.const;
  switch (schema.type) {
    case "string":
      return stringFor(name, schema);
    case "integer":
    case "number":
      return schema.default ?? schema.minimum ?? 1;
    case "boolean":
      return false;
    case "array": {
      const one = sample(schema.items as TSchema, name, path, mode, depth + 1);
      return one === undefined ? [] : Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => one);
    }
    case "object": {
      const out: Record<string, unknown> = {};
      const required = new Set<string>((schema.required as string[]) ?? []);
      for (const [k, v] of Object.entries((schema.properties as Record<string, TSchema>) ?? {})) {
        const wanted = required.has(k) || (mode === "paths" && isPath(v)) || (mode === "query" && QUERY_FIELDS.has(k));
        if (!wanted) continue;
        const value = sample(v, k, path, mode, depth + 1);
        if (value !== undefined) out[k] = value;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/**
 * Inputs for an operation, generated from its schema: one per path of the pool for each marked
 * path field, one with its search fields, one bare; an AI scope gets each of its kinds.
 */
export function inputsFor(op: AnyOperation): Record<string, unknown>[] {
  const takesPath = JSON.stringify(op.input).includes(PATH_MARK);
  const out = [
    ...(takesPath ? PATH_POOL.map((p) => sample(op.input, "", p, "paths")) : []),
    sample(op.input, "", "", "query"),
    sample(op.input, "", "", "bare"),
  ] as Record<string, unknown>[];
  const props = op.input.properties as Record<string, TSchema>;
  for (const field of ["scope", "source"])
    if (props[field] && /"kind"/.test(JSON.stringify(props[field])))
      for (const scope of [
        { kind: "glob", path_glob: "**" },
        { kind: "tag", tag: "shared" },
        { kind: "query", q: "alpha goals" },
        { kind: "paths", paths: ["Personal/Diary zqcanary01.md"] },
        { kind: "paths", paths: ["Projects/Alpha.md"] },
        { kind: "note", path: "zqcanary03 Root.md" },
      ])
        out.push({ ...(out.at(-1) ?? {}), [field]: scope });
  return out;
}

/** The strings a caller sent: an answer may say them back (an error naming the path asked for) without leaking. */
function inputStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) inputStrings(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) inputStrings(v, out);
  return out;
}

/** The canaries an answer holds beyond what its own input said, or null. */
export function leakIn(answer: unknown, input: unknown = null): string | null {
  let text = typeof answer === "string" ? answer : JSON.stringify(answer);
  for (const s of inputStrings(input).sort((a, b) => b.length - a.length))
    if (s.length > 2) {
      text = text.split(s).join("<input>");
      text = text.split(JSON.stringify(s).slice(1, -1)).join("<input>");
      text = text.split(encodeURIComponent(s)).join("<input>");
    }
  const m = CANARY.exec(text);
  return m ? text.slice(Math.max(0, m.index - 80), m.index + 80) : null;
}

/**
 * The request the REST face makes of one sample input of a route's operation, as `token`: the
 * wildcard parameter in the path, the rest in the query or a JSON body. `base` replaces the
 * route's `/v1/` (a named vault's `/v1/vaults/{name}/`).
 */
export function restRequestOf(route: Route, input: Record<string, unknown>, token: string, base = "/v1/"): { url: string; init: RequestInit } {
  const rest: Record<string, unknown> = { ...input };
  let url = route.prefix.replace(/^\/v1\//, base);
  if (route.wildParam) {
    const value = String(rest[route.wildParam] ?? "Projects/Alpha.md");
    delete rest[route.wildParam];
    url += value.split("/").map(encodeURIComponent).join("/") + (route.suffix ?? "");
  }
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  const init: RequestInit = { method: route.method, headers };
  if (route.input === "query") {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(rest))
      for (const one of Array.isArray(v) ? v : [v]) qs.append(k, typeof one === "object" ? JSON.stringify(one) : String(one));
    if ([...qs].length) url += `?${qs}`;
  } else {
    init.body = JSON.stringify(rest);
    headers["content-type"] = "application/json";
  }
  return { url, init };
}
