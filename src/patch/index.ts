/** The structural patch engine (DESIGN.md §5): pure functions from text + ops to text. */
export { applyPatches, type PatchResult, type RenamedHeading } from "./engine.ts";
export { type PatchOp, type PatchOpName, PatchOpSchema } from "./schema.ts";
