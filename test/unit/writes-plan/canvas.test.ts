/** JSON Canvas core: validation problems, parse, Obsidian-style serialisation, patches. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { jsonStringSpans } from "../../../src/canvas/json-spans.ts";
import { applyCanvasPatches, CanvasPatchOpSchema } from "../../../src/canvas/patch.ts";
import { type CanvasDoc, CanvasNodeVariants, type CanvasPatchOp, CanvasSchema } from "../../../src/canvas/schema.ts";
import { parseCanvas, serializeCanvas, validateCanvas } from "../../../src/canvas/validate.ts";
import { IndxError } from "../../../src/core/errors.ts";

const SAMPLE = readFileSync(join(import.meta.dir, "..", "..", "..", "fixtures", "jsoncanvas-sample", "sample.canvas"), "utf8");

function error(f: () => unknown): IndxError {
  try {
    f();
  } catch (e) {
    if (e instanceof IndxError) return e;
    throw e;
  }
  throw new Error("expected an IndxError");
}

const problems = (value: unknown) => (error(() => validateCanvas(value)).details as { problems: { path: string; message: string }[] }).problems;

const node = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: "text" as const, text: id, x: 0, y: 0, width: 100, height: 50, ...extra });

describe("validateCanvas", () => {
  test("the spec's sample is valid, for the TypeBox schema too", () => {
    const doc = parseCanvas(SAMPLE);
    expect(doc.nodes).toHaveLength(5);
    expect(doc.edges).toHaveLength(1);
    expect(Value.Check(CanvasSchema, doc)).toBe(true);
    // Each node also matches its exact spec variant.
    for (const n of doc.nodes!) expect(CanvasNodeVariants.filter((v) => Value.Check(v, n))).toHaveLength(1);
  });

  test("the op schema accepts a structurally plausible node so validateCanvas can name the missing field", () => {
    const node = { id: "x", type: "text", x: 0, y: 0, width: 1, height: 1 };
    expect(Value.Check(CanvasSchema, { nodes: [node] })).toBe(true);
    expect(problems({ nodes: [node] })).toEqual([{ path: "/nodes/0/text", message: "is required" }]);
    expect(Value.Check(CanvasSchema, { nodes: [{ ...node, type: "shape" }] })).toBe(false);
  });

  test("each violation is reported with its JSON pointer", () => {
    const bad = {
      nodes: [
        node("a"),
        { id: "b", type: "file", x: 1.5, y: 0, width: 1, height: 1, subpath: "Heading" },
        { id: "c", type: "shape", x: 0, y: 0, width: 1, height: 1 },
        node("a", { color: "7" }),
        { id: "g", type: "group", x: 0, y: 0, width: 1, height: 1, backgroundStyle: "tile" },
        { type: "link", x: 0, y: 0, width: 1, height: "1", url: "https://x" },
      ],
      edges: [{ id: "e1", fromNode: "a", toNode: "zz", toEnd: "circle" }, { id: "e1", fromNode: "a", toNode: "b", fromSide: "middle" }, { fromNode: "a" }],
    };
    expect(problems(bad)).toEqual([
      { path: "/nodes/1/x", message: "must be an integer" },
      { path: "/nodes/1/file", message: "is required" },
      { path: "/nodes/1/subpath", message: 'must start with "#"' },
      { path: "/nodes/2/type", message: "must be one of text, file, link, group" },
      { path: "/nodes/3/color", message: 'must be a preset "1".."6" or a hex colour like "#FF0000"' },
      { path: "/nodes/4/backgroundStyle", message: "must be one of cover, ratio, repeat" },
      { path: "/nodes/5/id", message: "is required" },
      { path: "/nodes/5/height", message: "must be an integer" },
      { path: "/nodes/3/id", message: 'duplicate id "a"' },
      { path: "/edges/0/toNode", message: 'names no node of this canvas: "zz"' },
      { path: "/edges/0/toEnd", message: "must be one of none, arrow" },
      { path: "/edges/1/fromSide", message: "must be one of top, right, bottom, left" },
      { path: "/edges/2/id", message: "is required" },
      { path: "/edges/2/toNode", message: "is required" },
      { path: "/edges/1/id", message: 'duplicate id "e1"' },
    ]);
    expect(error(() => validateCanvas(bad)).code).toBe("validation_failed");
    expect(problems([])).toEqual([{ path: "/", message: "a canvas must be a JSON object" }]);
    expect(problems({ nodes: {} })).toEqual([{ path: "/nodes", message: "must be an array" }]);
  });

  test("unknown keys are kept (forward compatibility); nodes and edges are optional", () => {
    expect(validateCanvas({ nodes: [node("a", { futureKey: { deep: 1 } })], extra: true })).toEqual({
      nodes: [node("a", { futureKey: { deep: 1 } })],
      extra: true,
    } as unknown as CanvasDoc);
    expect(validateCanvas({})).toEqual({});
  });

  test("parseCanvas: bad JSON is parse_failed, an empty file is an empty canvas", () => {
    expect(error(() => parseCanvas("{nodes:")).code).toBe("parse_failed");
    expect(error(() => parseCanvas('{"nodes":[{"id":1}]}')).code).toBe("validation_failed");
    expect(parseCanvas("")).toEqual({});
  });
});

describe("serializeCanvas", () => {
  test("an unchanged document gives back the original bytes, whatever its layout", () => {
    for (const original of [SAMPLE, `${SAMPLE}\n`, JSON.stringify(JSON.parse(SAMPLE), null, 2), JSON.stringify(JSON.parse(SAMPLE)), ""]) {
      expect(serializeCanvas(parseCanvas(original), original)).toBe(original);
    }
    // Key order inside an object does not make a document different.
    const reordered = { edges: parseCanvas(SAMPLE).edges, nodes: parseCanvas(SAMPLE).nodes } as CanvasDoc;
    expect(serializeCanvas(reordered, SAMPLE)).toBe(SAMPLE);
  });

  test("written as Obsidian writes it: tab indent, one compact node or edge per line", () => {
    const doc = parseCanvas(SAMPLE);
    expect(serializeCanvas(doc)).toBe(SAMPLE);
    expect(serializeCanvas({})).toBe("{}");
    expect(serializeCanvas({ nodes: [node("a")], edges: [] })).toBe(
      '{\n\t"nodes":[\n\t\t{"id":"a","type":"text","text":"a","x":0,"y":0,"width":100,"height":50}\n\t],\n\t"edges":[]\n}',
    );
  });

  test("a changed document keeps the original file's layout", () => {
    const doc = applyCanvasPatches(parseCanvas(SAMPLE), [{ op: "remove_edge", id: "6fa11ab87f90b8af" }]);
    expect(serializeCanvas(doc, SAMPLE)).toBe(SAMPLE.replace(/\n\t\t\{"id":"6fa11ab87f90b8af"[^\n]*\n\t\]/, "]"));
    const pretty = `${JSON.stringify(JSON.parse(SAMPLE), null, 2)}\n`;
    expect(serializeCanvas(doc, pretty)).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    const crlf = SAMPLE.replaceAll("\n", "\r\n");
    expect(serializeCanvas(doc, crlf)).toBe(serializeCanvas(doc, SAMPLE).replaceAll("\n", "\r\n"));
  });
});

describe("applyCanvasPatches", () => {
  const base = (): CanvasDoc =>
    ({
      nodes: [node("a"), node("b"), node("c")],
      edges: [
        { id: "ab", fromNode: "a", toNode: "b" },
        { id: "bc", fromNode: "b", toNode: "c" },
      ],
    }) as CanvasDoc;

  test("add, update (null removes a field), remove node with its edges, edges", () => {
    const ops: CanvasPatchOp[] = [
      { op: "add_node", node: { id: "d", type: "file", file: "Note.md", subpath: "#H", x: 1, y: 2, width: 3, height: 4 } },
      { op: "update_node", id: "a", set: { color: "4", text: "A!" } },
      { op: "update_node", id: "a", set: { color: null } },
      { op: "remove_node", id: "b" },
      { op: "add_edge", edge: { id: "cd", fromNode: "c", toNode: "d", toEnd: "none", label: "x" } },
      { op: "update_edge", id: "cd", set: { label: "y", fromSide: "left" } },
    ];
    for (const op of ops) expect(Value.Check(CanvasPatchOpSchema, op)).toBe(true);
    const input = base();
    const out = applyCanvasPatches(input, ops);
    expect(out.nodes!.map((n) => n.id)).toEqual(["a", "c", "d"]);
    expect(out.nodes![0]).toEqual(node("a", { text: "A!" }) as never);
    expect(out.edges).toEqual([{ id: "cd", fromNode: "c", toNode: "d", toEnd: "none", label: "y", fromSide: "left" }]);
    expect(input).toEqual(base()); // the input document is not touched
    expect(applyCanvasPatches(base(), [{ op: "remove_edge", id: "ab" }]).edges!.map((e) => e.id)).toEqual(["bc"]);
  });

  test("typed errors: a missing target, a duplicate id, an invalid result", () => {
    const notFound = error(() => applyCanvasPatches(base(), [{ op: "update_node", id: "zz", set: { x: 1 } }]));
    expect(notFound.code).toBe("patch_target_not_found");
    expect(notFound.details).toMatchObject({ id: "zz" });
    expect(error(() => applyCanvasPatches(base(), [{ op: "remove_edge", id: "zz" }])).code).toBe("patch_target_not_found");
    const dup = error(() => applyCanvasPatches(base(), [{ op: "add_node", node: node("a") as never }]));
    expect(dup.code).toBe("validation_failed");
    expect(dup.details).toMatchObject({ id: "a", reason: "already_exists" });
    expect(error(() => applyCanvasPatches(base(), [{ op: "add_edge", edge: { id: "ab", fromNode: "a", toNode: "c" } }])).code).toBe("validation_failed");
    expect(error(() => applyCanvasPatches(base(), [{ op: "add_edge", edge: { id: "x", fromNode: "a", toNode: "nope" } }])).code).toBe("validation_failed");
    expect(error(() => applyCanvasPatches(base(), [{ op: "update_node", id: "a", set: { x: 0.5 } }])).code).toBe("validation_failed");
    expect(error(() => applyCanvasPatches(base(), [{ op: "update_node", id: "a", set: { id: "z" } }])).code).toBe("validation_failed");
    expect(error(() => applyCanvasPatches(base(), [{ op: "update_node", id: "a", set: { text: null } }])).code).toBe("validation_failed");
  });

  test("a patch that changes nothing serialises to the original bytes", () => {
    const doc = applyCanvasPatches(parseCanvas(SAMPLE), [
      { op: "update_node", id: "8132d4d894c80022", set: { color: "1" } },
      { op: "update_node", id: "8132d4d894c80022", set: { color: "6" } },
    ]);
    expect(serializeCanvas(doc, SAMPLE)).toBe(SAMPLE);
  });
});

describe("jsonStringSpans", () => {
  test("locates every string value by path", () => {
    const spans = jsonStringSpans(SAMPLE);
    const file = spans.find((s) => s.path.join("/") === "nodes/1/file")!;
    expect(file.value).toBe("readme.md");
    expect(SAMPLE.slice(file.start, file.end)).toBe('"readme.md"');
    const text = spans.find((s) => s.path.join("/") === "nodes/3/text")!;
    expect(JSON.parse(SAMPLE.slice(text.start, text.end))).toBe(text.value);
    expect(text.value.startsWith("Learn more:\n")).toBe(true);
  });
});
