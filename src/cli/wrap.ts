/**
 * Wraps text to `width` columns at spaces: the first line starts with `first` (default: `indent`),
 * the following ones with `indent`. Paragraphs (blank-line separated) and explicit line breaks are
 * kept; a word longer than a line stays whole. `measure` counts what a line shows (markup that
 * will not be printed as it is counts for nothing).
 */
export function wrap(text: string, width: number, indent = "", first = indent, measure: (s: string) => number = (s) => s.length): string {
  const out: string[] = [];
  text.split("\n").forEach((para, p) => {
    let line = p === 0 ? first : indent;
    let empty = true;
    for (const word of para.split(/ +/).filter(Boolean)) {
      if (!empty && measure(line) + 1 + measure(word) > width) {
        out.push(line);
        line = indent + word;
      } else line += (empty ? "" : " ") + word;
      empty = false;
    }
    out.push(empty ? line.trimEnd() : line);
  });
  return out.join("\n");
}
