import { expect } from "bun:test";
import { IndxError } from "../../../src/core/errors.ts";
import { applyPatches } from "../../../src/patch/engine.ts";
import type { PatchOp } from "../../../src/patch/schema.ts";

/** Applies ops and returns the new text. */
export const patch = (text: string, ...ops: PatchOp[]): string => applyPatches(text, ops).text;

/** Runs ops that must fail; returns the IndxError for further checks. */
export function patchError(text: string, ...ops: PatchOp[]): IndxError {
  try {
    applyPatches(text, ops);
  } catch (e) {
    expect(e).toBeInstanceOf(IndxError);
    return e as IndxError;
  }
  throw new Error("expected the patch to fail");
}

/** LF → CRLF, to run the same case on a CRLF note. */
export const crlf = (s: string): string => s.replace(/\n/g, "\r\n");
