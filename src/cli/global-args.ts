import type { ArgsDef } from "citty";

/** Flags every command accepts (citty does not pass a parent's flags down, so each leaf declares them). */
export const GLOBAL_ARGS = {
  vault: { type: "string", description: "Vault folder (else INDX_VAULT, else `vault` in the config file).", valueHint: "dir" },
  "data-dir": { type: "string", description: "Index and state folder for this vault (else INDX_DATA_DIR).", valueHint: "dir" },
  json: {
    type: "boolean",
    description: "JSON output (the default when stdout is not a terminal); `--json a,b` keeps only those fields (of the result, or of each row of a list).",
  },
  color: {
    type: "boolean",
    description: "Colour: --color forces it, --no-color turns it off (else FORCE_COLOR, NO_COLOR, else on when stdout is a terminal).",
  },
  format: { type: "string", description: "Output format: json, ndjson, csv, md, files or table.", valueHint: "json|ndjson|csv|md|files|table" },
} as const satisfies ArgsDef;
