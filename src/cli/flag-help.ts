/**
 * Help for flags whose schema field carries no description: the MCP catalogue keeps such fields
 * bare to stay small (docs/decisions.md, "The MCP catalogue budget"), and the operation's
 * description says what they mean to an agent; a person reading `--help` gets it here.
 */
export const CLI_FLAG_HELP: Record<string, string> = {
  where: `A Bases expression each note must pass, e.g. 'status != "done" && file.inFolder("Projects")'.`,
  base: "Inline base YAML (filters, formulas, views), instead of a path.",
  view: "The view to run, by name (default: the first).",
  text: "The Markdown to save (read from stdin when piped).",
  title: "Names the note; without it the name is the date and time.",
  folder: "The folder to save into, instead of capture.folder ('' for the vault root).",
  frontmatter: "Properties to write as YAML frontmatter, as a JSON object.",
  path_glob: "Only notes whose path matches this glob, e.g. 'Projects/**'.",
  paths: "Vault paths (or note names) to read, in this order.",
  sort: "Order of the list.",
  period: "Which periodic note: day, week, month, quarter or year.",
  create: "Create the note from the vault's template when it is missing.",
  min_score: "Leave out hits scoring below this.",
  tag: "The tag, with or without #; nested tags are included.",
  value: "The value to set ('' removes the key).",
  download: "Also return the file's bytes (base64).",
  allow_large: "Read a file above the size limit.",
};
