/**
 * A fast path for the frontmatter most notes have: top-level `key: scalar`, `key: [a, b]` and
 * `key:` + `- item` lists, with plain or simply quoted scalars. It resolves scalars exactly like
 * eemeli/yaml's YAML 1.2 core schema and returns `undefined` for anything else (comments, nesting,
 * anchors, tags, block scalars, escapes, duplicate keys, …) so the caller can use the real parser.
 * A differential test against `yaml` guards the equivalence.
 */

const KEY = /^[A-Za-z_][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+)*$/;
const NON_STRING_KEY = /^(?:[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE)$/;

const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const NAN_INF = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** Core-schema resolution of a plain scalar (already trimmed). */
function resolvePlain(s: string): unknown {
  if (NULL.test(s)) return null;
  const c = s.charCodeAt(0);
  // Only strings starting with a digit, sign, dot, or t/f/T/F can be non-strings.
  if (BOOL.test(s)) return s[0] === "t" || s[0] === "T";
  if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) {
    if (OCT.test(s)) return parseInt(s.substring(2), 8);
    if (INT.test(s)) return parseInt(s, 10);
    if (HEX.test(s)) return parseInt(s.substring(2), 16);
    if (NAN_INF.test(s)) return s.slice(-3).toLowerCase() === "nan" ? NaN : s[0] === "-" ? -Infinity : Infinity;
    if (EXP.test(s) || FLOAT.test(s)) return parseFloat(s);
  }
  return s;
}

/** Characters that may not start a plain scalar we accept (YAML indicators, quotes, space). */
const BAD_FIRST = new Set("-?:,[]{}#&*!|>'\"%@` \t");

/** A value written after `key: ` or `- `; `flow` for items inside `[...]`. undefined = bail. */
function scalar(raw: string, flow: boolean): { v: unknown } | undefined {
  const s = raw.trim();
  if (s === "") return flow ? undefined : { v: null };
  const q = s.charCodeAt(0);
  if (q === 34 /* " */ || q === 39 /* ' */) {
    const inner = s.slice(1, -1);
    if (s.length < 2 || s.charCodeAt(s.length - 1) !== q || inner.indexOf(s.charAt(0)) >= 0 || inner.indexOf("\\") >= 0) {
      return undefined;
    }
    if (flow && inner.indexOf(",") >= 0) return undefined;
    return { v: inner };
  }
  if (BAD_FIRST.has(s.charAt(0))) return undefined;
  if (s.indexOf(": ") >= 0 || s.endsWith(":") || s.indexOf("\t") >= 0) return undefined;
  if (flow && /[,[\]{}:]/.test(s)) return undefined;
  return { v: resolvePlain(s) };
}

export function parseSimpleYaml(src: string): Record<string, unknown> | undefined {
  if (src.indexOf("#") >= 0 || src.indexOf("\t") >= 0) return undefined;
  const lines = src.split("\n");
  const out: Record<string, unknown> = {};
  let i = 0;
  while (i < lines.length) {
    let line = lines[i] ?? "";
    if (line.endsWith("\r")) line = line.slice(0, -1);
    i++;
    if (line.trim() === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    const key = line.slice(0, colon);
    if (!KEY.test(key) || NON_STRING_KEY.test(key) || key === "__proto__" || Object.hasOwn(out, key)) return undefined;
    const rest = line.slice(colon + 1);
    if (rest !== "" && rest.charCodeAt(0) !== 32) return undefined;
    const value = rest.trim();
    if (value === "") {
      // Either null or a block sequence of scalars on the following lines.
      const items: unknown[] = [];
      let indent = -1;
      while (i < lines.length) {
        let l = lines[i] ?? "";
        if (l.endsWith("\r")) l = l.slice(0, -1);
        if (l.trim() === "") {
          i++;
          continue;
        }
        let n = 0;
        while (l.charCodeAt(n) === 32) n++;
        if (l.charCodeAt(n) !== 45 /* - */) {
          if (n > 0) return undefined; // indented non-item: nested mapping or continuation
          break;
        }
        if (indent < 0) indent = n;
        else if (n !== indent) return undefined;
        const after = l.charCodeAt(n + 1);
        if (n + 1 < l.length && after !== 32) return undefined; // `-x` is a scalar, not an item
        const item = scalar(l.slice(n + 1), false);
        if (!item) return undefined;
        items.push(item.v);
        i++;
      }
      out[key] = indent < 0 ? null : items;
      continue;
    }
    if (value.charCodeAt(0) === 91 /* [ */) {
      if (!value.endsWith("]")) return undefined;
      const body = value.slice(1, -1);
      if (body.trim() === "") {
        out[key] = [];
        continue;
      }
      const items: unknown[] = [];
      for (const part of body.split(",")) {
        const item = scalar(part, true);
        if (!item) return undefined;
        items.push(item.v);
      }
      out[key] = items;
      continue;
    }
    const v = scalar(value, false);
    if (!v) return undefined;
    out[key] = v.v;
  }
  return out;
}
