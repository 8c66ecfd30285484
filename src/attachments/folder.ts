/**
 * Where Obsidian puts a new attachment (`attachmentFolderPath` in `.obsidian/app.json`) and the
 * name it gives one whose name is taken.
 */

const dirOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
const join = (...parts: string[]) => parts.filter(Boolean).join("/");

/**
 * The vault folder ("" for the root) of a new attachment: "/" the root, "./" the note's own
 * folder, "./sub" a folder inside it, anything else that vault folder. Without a note, "./" means
 * the root, as the note's folder would be.
 */
export function attachmentFolder(setting: string, note: string | null): string {
  const noteDir = note ? dirOf(note) : "";
  if (setting === "./" || setting === ".") return noteDir;
  if (setting.startsWith("./")) return join(noteDir, setting.slice(2).replace(/^\/+|\/+$/g, ""));
  return setting.replace(/^\/+|\/+$/g, "");
}

/** `name`, then `name 1.ext`, `name 2.ext`, … as Obsidian numbers a name already taken. */
export function* availableNames(name: string): Generator<string> {
  yield name;
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let n = 1; ; n++) yield `${stem} ${n}${ext}`;
}

/** Characters Obsidian refuses in a file name: they break links (`#^[]|`) or paths on some system. */
const FORBIDDEN = /[*"\\/<>:|?#^[\]]/;

/**
 * Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: a name with a CR
 * or LF splits a link, a listing, a log line or an HTTP header (Content-Disposition) in two.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function nameProblem(name: string): { message: string; reason: "name" | "control_character" } | null {
  if (CONTROL.test(name)) return { message: "cannot contain a control character (a line break, a tab, …)", reason: "control_character" };
  if (FORBIDDEN.test(name)) return { message: 'cannot contain any of * " \\ / < > : | ? # ^ [ ]', reason: "name" };
  if (name.startsWith(".")) return { message: "cannot start with a dot (hidden files are not vault content)", reason: "name" };
  return null;
}
