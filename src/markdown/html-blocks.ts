/**
 * CommonMark HTML blocks (docs/obsidian.md, Tags): Obsidian renders no Markdown inside them, so
 * their text holds no tags. `<!-- comments -->` (CommonMark's kind 2) are left to the inline
 * scanner, which hides everything in them, links included.
 */

/** How an open HTML block ends: on the line holding `marker`, or at the next blank line. */
export type HtmlBlockEnd = { marker: string } | { blankLine: true };

const RAW_TEXT = /^<(?:pre|script|style|textarea)(?:[ \t>]|$)/i;

const BLOCK_NAMES = new Set(
  (
    "address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset " +
    "figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu " +
    "menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul"
  ).split(" "),
);

const BLOCK_TAG = /^<\/?([A-Za-z][A-Za-z0-9-]*)(?:[ \t>]|\/>|$)/;

const ATTRIBUTE = String.raw`[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^ \t"'=<>\x60]+|'[^']*'|"[^"]*"))?`;
/** A complete open or closing tag alone on its line (kind 7). */
const LONE_TAG = new RegExp(String.raw`^(?:<[A-Za-z][A-Za-z0-9-]*(?:${ATTRIBUTE})*[ \t]*\/?>|<\/[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$`);

/**
 * Does the line content `line` (its indentation already skipped, under 4 columns) open an HTML
 * block? `inParagraph`: a lone tag (kind 7) cannot interrupt a paragraph.
 */
export function htmlBlockStart(line: string, inParagraph: boolean): HtmlBlockEnd | null {
  if (line.charCodeAt(0) !== 60 /* < */) return null;
  const raw = RAW_TEXT.exec(line);
  if (raw)
    return {
      marker: `</${raw[0]
        .slice(1)
        .replace(/[ \t>]$/, "")
        .toLowerCase()}>`,
    };
  if (line.startsWith("<?")) return { marker: "?>" };
  if (line.startsWith("<![CDATA[")) return { marker: "]]>" };
  if (/^<![A-Za-z]/.test(line)) return { marker: ">" };
  const tagName = BLOCK_TAG.exec(line)?.[1];
  if (tagName !== undefined && BLOCK_NAMES.has(tagName.toLowerCase())) return { blankLine: true };
  if (!inParagraph && LONE_TAG.test(line) && !RAW_TEXT.test(line.replace("</", "<"))) return { blankLine: true };
  return null;
}

/** Does this line close a block that ends on a marker? (Raw-text end tags match in any case.) */
export function holdsEndMarker(line: string, end: HtmlBlockEnd): boolean {
  return "marker" in end && (end.marker.startsWith("</") ? line.toLowerCase() : line).includes(end.marker);
}
