/**
 * JSON Canvas 1.0 validation, parsing and serialisation. Validation is hand-written rather than
 * TypeBox's union errors so each problem names its exact JSON pointer (`/nodes/3/x`) and says what
 * is wrong in terms of the spec; the rules are the same as schema.ts plus what a schema cannot say
 * (unique ids, edges between existing nodes).
 */
import { IndxError } from "../core/errors.ts";
import { CANVAS_COLOR_PATTERN, type CanvasDoc } from "./schema.ts";

export interface CanvasProblem {
  path: string;
  message: string;
}

const COLOR = new RegExp(CANVAS_COLOR_PATTERN);
const NODE_TYPES = ["text", "file", "link", "group"];
const SIDES = ["top", "right", "bottom", "left"];
const ENDS = ["none", "arrow"];
const BACKGROUND_STYLES = ["cover", "ratio", "repeat"];
const MAX_PROBLEMS = 50;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

class Checker {
  readonly problems: CanvasProblem[] = [];
  add(path: string, message: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ path, message });
  }
  required(o: Obj, key: string, at: string, check: (v: unknown) => string | null): void {
    if (!(key in o) || o[key] === undefined) this.add(`${at}/${key}`, "is required");
    else this.optional(o, key, at, check);
  }
  optional(o: Obj, key: string, at: string, check: (v: unknown) => string | null): void {
    if (!(key in o) || o[key] === undefined) return;
    const problem = check(o[key]);
    if (problem) this.add(`${at}/${key}`, problem);
  }
}

const str = (v: unknown) => (typeof v === "string" ? null : "must be a string");
const id = (v: unknown) => (typeof v !== "string" ? "must be a string" : v === "" ? "must not be empty" : null);
const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? null : "must be an integer");
const oneOf = (allowed: string[]) => (v: unknown) => (typeof v === "string" && allowed.includes(v) ? null : `must be one of ${allowed.join(", ")}`);
const color = (v: unknown) => (typeof v === "string" && COLOR.test(v) ? null : 'must be a preset "1".."6" or a hex colour like "#FF0000"');
const subpath = (v: unknown) => (typeof v !== "string" ? "must be a string" : v.startsWith("#") ? null : 'must start with "#"');

function checkNode(c: Checker, node: unknown, at: string): void {
  if (!isObj(node)) return c.add(at, "must be an object");
  c.required(node, "id", at, id);
  c.required(node, "type", at, oneOf(NODE_TYPES));
  for (const k of ["x", "y", "width", "height"]) c.required(node, k, at, int);
  c.optional(node, "color", at, color);
  switch (node.type) {
    case "text":
      return c.required(node, "text", at, str);
    case "file":
      c.required(node, "file", at, str);
      return c.optional(node, "subpath", at, subpath);
    case "link":
      return c.required(node, "url", at, str);
    case "group":
      c.optional(node, "label", at, str);
      c.optional(node, "background", at, str);
      return c.optional(node, "backgroundStyle", at, oneOf(BACKGROUND_STYLES));
  }
}

function checkEdge(c: Checker, edge: unknown, at: string, nodeIds: Set<string>): void {
  if (!isObj(edge)) return c.add(at, "must be an object");
  c.required(edge, "id", at, id);
  const endpoint = (v: unknown) => id(v) ?? (nodeIds.has(v as string) ? null : `names no node of this canvas: "${v as string}"`);
  c.required(edge, "fromNode", at, endpoint);
  c.required(edge, "toNode", at, endpoint);
  c.optional(edge, "fromSide", at, oneOf(SIDES));
  c.optional(edge, "toSide", at, oneOf(SIDES));
  c.optional(edge, "fromEnd", at, oneOf(ENDS));
  c.optional(edge, "toEnd", at, oneOf(ENDS));
  c.optional(edge, "color", at, color);
  c.optional(edge, "label", at, str);
}

/** Flags the second and later uses of an id within one list. */
function checkUniqueIds(c: Checker, items: unknown[], at: string): Set<string> {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const v = isObj(item) ? item.id : undefined;
    if (typeof v !== "string") return;
    if (seen.has(v)) c.add(`${at}/${i}/id`, `duplicate id "${v}"`);
    seen.add(v);
  });
  return seen;
}

/** All problems of a canvas value (empty when it is valid JSON Canvas 1.0). */
export function canvasProblems(value: unknown): CanvasProblem[] {
  const c = new Checker();
  if (!isObj(value)) {
    c.add("/", "a canvas must be a JSON object");
    return c.problems;
  }
  let nodeIds = new Set<string>();
  if (value.nodes !== undefined) {
    if (!Array.isArray(value.nodes)) c.add("/nodes", "must be an array");
    else {
      for (const [i, n] of value.nodes.entries()) checkNode(c, n, `/nodes/${i}`);
      nodeIds = checkUniqueIds(c, value.nodes, "/nodes");
    }
  }
  if (value.edges !== undefined) {
    if (!Array.isArray(value.edges)) c.add("/edges", "must be an array");
    else {
      for (const [i, e] of value.edges.entries()) checkEdge(c, e, `/edges/${i}`, nodeIds);
      checkUniqueIds(c, value.edges, "/edges");
    }
  }
  return c.problems;
}

/** The value as a CanvasDoc, or validation_failed with every problem ({ problems: [{path, message}] }). */
export function validateCanvas(value: unknown): CanvasDoc {
  const problems = canvasProblems(value);
  const [first] = problems;
  if (first) {
    throw new IndxError("validation_failed", `Invalid canvas: ${first.path} ${first.message}`, { problems });
  }
  return value as CanvasDoc;
}

/**
 * A canvas file's text → its validated document. Bad JSON is parse_failed; an empty file is an
 * empty canvas (what a freshly created, never-edited canvas holds).
 */
export function parseCanvas(text: string): CanvasDoc {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new IndxError("parse_failed", "The canvas file is not valid JSON.");
  }
  return validateCanvas(value);
}

// ---------------------------------------------------------------------------------------------
// Serialisation

/** JSON equality: object key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isObj(a) || !isObj(b) || Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

interface Layout {
  indent: string;
  /** Obsidian's layout: each node and edge as one compact object per line. */
  compactItems: boolean;
  /** No line breaks at all (a minified file). */
  minified: boolean;
  trailingNewline: boolean;
  eol: string;
}

/** Obsidian's own layout: tab indent, one compact node/edge per line, no trailing newline. */
const OBSIDIAN: Layout = { indent: "\t", compactItems: true, minified: false, trailingNewline: false, eol: "\n" };

function detectLayout(original: string): Layout {
  const eol = original.includes("\r\n") ? "\r\n" : "\n";
  if (!original.trim().includes("\n")) return { ...OBSIDIAN, minified: original.trim() !== "", eol };
  const indent = /\n([ \t]+)\S/.exec(original)?.[1] ?? "\t";
  // In Obsidian's layout the first node's line starts with `{` and ends with `}` (or `},`).
  const item = /"(?:nodes|edges)"\s*:\s*\[\s*\r?\n([ \t]*)(\{.*)\r?\n/.exec(original);
  const compactItems = item ? /\}\s*,?\s*$/.test(item[2] ?? "") : true;
  return { indent: indent.startsWith("\t") ? "\t" : indent, compactItems, minified: false, trailingNewline: /\n\s*$/.test(original), eol };
}

function render(doc: CanvasDoc, l: Layout): string {
  if (l.minified) return JSON.stringify(doc);
  if (!l.compactItems) return JSON.stringify(doc, null, l.indent).replaceAll("\n", l.eol);
  const keys = Object.keys(doc).filter((k) => (doc as Obj)[k] !== undefined);
  if (keys.length === 0) return "{}";
  const lines = keys.map((k) => {
    const v = (doc as Obj)[k];
    const head = `${l.indent}${JSON.stringify(k)}:`;
    if (!Array.isArray(v) || v.length === 0 || (k !== "nodes" && k !== "edges")) return head + JSON.stringify(v);
    const items = v.map((item) => `${l.indent}${l.indent}${JSON.stringify(item)}`).join(`,${l.eol}`);
    return `${head}[${l.eol}${items}${l.eol}${l.indent}]`;
  });
  return `{${l.eol}${lines.join(`,${l.eol}`)}${l.eol}}`;
}

/**
 * The file text for `doc`, written as Obsidian writes canvases (tab indent, `"nodes":[`, one
 * compact object per line). With `original`, its layout (indent, expanded or compact items, line
 * ending, trailing newline) is kept, and when `doc` equals what `original` holds, `original` itself
 * is returned so a no-op write is byte-identical.
 */
export function serializeCanvas(doc: CanvasDoc, original?: string): string {
  if (original === undefined) return render(doc, OBSIDIAN);
  try {
    const body = original.charCodeAt(0) === 0xfeff ? original.slice(1) : original;
    if (jsonEqual(body.trim() === "" ? {} : JSON.parse(body), doc)) return original;
  } catch {
    // Not JSON: nothing to keep but nothing to compare with either.
  }
  const layout = detectLayout(original);
  const text = render(doc, layout);
  return layout.trailingNewline ? text + layout.eol : text;
}
