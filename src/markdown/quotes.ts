/** Block-quote markers at the start of a line (CommonMark), for the body scanner (scanner.ts). */
import { isSpaceOrTab, SPACE } from "./chars.ts";

export interface QuoteMarkers {
  depth: number;
  /** Index after the last marker and the one optional space that belongs to it. */
  contentStart: number;
}

/**
 * Up to `max` `>` markers from `p`, each with the one optional space after it: more spaces are the
 * content's own indent (a fence or a list inside the quote keeps its columns). A nested marker may
 * be indented up to 3 spaces.
 */
export function quoteMarkers(text: string, p: number, end: number, max: number): QuoteMarkers {
  let depth = 0;
  let q = p;
  while (depth < max) {
    let r = q;
    while (depth > 0 && r < end && r - q < 3 && text.charCodeAt(r) === SPACE) r++;
    if (r >= end || text.charCodeAt(r) !== 62 /* > */) break;
    depth++;
    q = r + 1;
    if (q < end && isSpaceOrTab(text.charCodeAt(q))) q++;
  }
  return { depth, contentStart: q };
}
