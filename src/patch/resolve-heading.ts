/**
 * Heading addressing (docs/contracts.md, Patch ops): "Leaf", "## Leaf" (the #s fix the level), or a
 * path "A > B > C" / "A::B::C" where each step lies inside the previous step's section (not
 * necessarily one level deeper). Text comparison is Obsidian's: `headingKey` on both sides.
 */
import { IndxError } from "../core/errors.ts";
import { headingKey } from "../markdown/headings.ts";
import { type HeadingNode, headingPath, type NoteStructure, parentOf } from "./structure.ts";

interface Step {
  level: number | null;
  key: string;
}

const LEVEL_PREFIX = /^(#{1,6})[ \t]+(.*)$/s;
const PATH_SEPARATOR = /::|>/;
/** A trailing occurrence number: "Log[2]", "Daily > Log [3]". */
const NTH = /^(.*?)\s*\[(\d{1,4})\]\s*$/s;

function parseStep(raw: string): Step | null {
  const t = raw.trim();
  const m = LEVEL_PREFIX.exec(t);
  const key = headingKey(m ? (m[2] ?? "") : t);
  if (key === "") return null;
  return { level: m ? (m[1] ?? "").length : null, key };
}

function stepMatches(step: Step, h: HeadingNode): boolean {
  return (step.level === null || step.level === h.level) && headingKey(h.text) === step.key;
}

/** True when `h` matches the last step and its ancestors contain the other steps, in order. */
function pathMatches(s: NoteStructure, steps: Step[], h: HeadingNode): boolean {
  const last = steps.at(-1);
  if (!last || !stepMatches(last, h)) return false;
  let k = steps.length - 2;
  // Nearest-first greedy matching finds an ordered subsequence whenever one exists.
  for (let p = parentOf(s, h); p && k >= 0; p = parentOf(s, p)) {
    const step = steps[k];
    if (step && stepMatches(step, p)) k--;
  }
  return k < 0;
}

interface Spec {
  /** The steps of a path spec ("A > B"), or null when the spec is not a (valid) path. */
  path: Step[] | null;
  /** The whole spec as one heading text, or null when nothing is left once punctuation goes. */
  leaf: Step | null;
}

function parseSpec(spec: string): Spec {
  let path: Step[] | null = null;
  if (PATH_SEPARATOR.test(spec)) {
    const steps = spec.split(PATH_SEPARATOR).map(parseStep);
    if (steps.every((x): x is Step => x !== null)) path = steps;
  }
  return { path, leaf: parseStep(spec) };
}

/**
 * All headings the spec addresses. A spec containing ">" or "::" is read as a path first; only
 * when that path matches nothing is the whole spec compared as one heading text (a heading may
 * itself contain ">").
 */
export function findHeadings(s: NoteStructure, spec: string): HeadingNode[] {
  const { path, leaf } = parseSpec(spec);
  if (path !== null) {
    const hits = s.headings.filter((h) => pathMatches(s, path, h));
    if (hits.length > 0) return hits;
  }
  return leaf === null ? [] : s.headings.filter((h) => stepMatches(leaf, h));
}

/** Headings a miss names: enough to pick from, bounded so an error stays small. */
const MISS_LISTED = 50;

/**
 * A target no heading matches: the note's headings in details (never in the message, which logs
 * may keep: it carries no note text), each with the path that addresses it, so the next call can
 * pick one without reading the note again (docs/decisions.md, "A heading miss lists the note's headings").
 */
function headingMiss(s: NoteStructure, spec: string): IndxError {
  const count = s.headings.length;
  const message =
    count === 0
      ? "No heading in the note matches the target: the note has no headings."
      : `No heading in the note matches the target; details.headings lists the note's ${count} heading${count === 1 ? "" : "s"}${count > MISS_LISTED ? ` (the first ${MISS_LISTED})` : ""}.`;
  return new IndxError("patch_target_not_found", message, {
    heading: spec,
    headings: s.headings.slice(0, MISS_LISTED).map((h) => ({ path: headingPath(s, h), level: h.level, line: h.line })),
  });
}

/** The one heading the spec addresses, or patch_target_not_found / patch_target_ambiguous. */
export function resolveHeading(s: NoteStructure, spec: string): HeadingNode {
  const parsed = parseSpec(spec);
  if (parsed.path === null && parsed.leaf === null) {
    throw new IndxError("validation_failed", "The heading target is empty once punctuation is ignored.", {
      heading: spec,
    });
  }
  let hits = findHeadings(s, spec);
  // "Log[2]": the second of several headings the rest of the spec matches (a printable way to
  // address duplicates: docs/decisions.md, Writes). A heading literally written "Log[2]" matches
  // first.
  const nth = NTH.exec(spec);
  if (hits.length === 0 && nth) {
    const all = findHeadings(s, nth[1] ?? "");
    const n = Number(nth[2]);
    const chosen = n >= 1 ? all[n - 1] : undefined;
    if (chosen) return chosen;
    hits = [];
  }
  if (hits.length > 1) {
    throw new IndxError(
      "patch_target_ambiguous",
      `${hits.length} headings match the target; address one by its path ("Parent > Child"), its level ("## Heading") or its place ("${spec}[2]").`,
      { heading: spec, candidates: hits.map((h, i) => ({ path: headingPath(s, h), line: h.line, address: `${spec}[${i + 1}]` })) },
    );
  }
  const [only] = hits;
  if (!only) throw headingMiss(s, spec);
  return only;
}
