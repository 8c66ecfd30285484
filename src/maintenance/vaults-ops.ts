import { Type } from "@sinclair/typebox";
import { defineOp } from "../ops/define.ts";
import { Nullable } from "../ops/schemas.ts";

const VaultState = Type.Union(
  (["open", "not_opened", "missing", "error"] as const).map((s) => Type.Literal(s)),
  { description: "not_opened: opened on first request; missing: folder gone" },
);

export const vaultList = defineOp({
  name: "vault_list",
  errors: [],
  title: "List the served vaults",
  description: "The vaults this server serves, their state and note counts.",
  scope: "vault:admin",
  safe: true,
  needsIndex: false,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    vaults: Type.Array(
      Type.Object({
        name: Nullable(Type.String({ description: "/v1/vaults/{name}/…, /mcp/{name}" })),
        default: Type.Boolean({ description: "Served at /v1/… and /mcp" }),
        state: VaultState,
        error: Type.Optional(Type.String({ description: "Error code" })),
        notes: Type.Optional(Type.Integer()),
        folder: Type.Optional(Type.String({ description: "As configured (CLI only)" })),
      }),
    ),
  }),
  async run(ctx) {
    const entries = await ctx.vaults.list(ctx.caller);
    // A folder is a path on the server's disk: the person at the machine sees it, a remote caller
    // never does (docs/contracts.md, no absolute path in a response).
    const local = ctx.caller?.surface === "cli";
    return { vaults: entries.map(({ folder, ...entry }) => (local && folder !== undefined ? { ...entry, folder } : entry)) };
  },
  summary: (o) => `${o.vaults.length} vault${o.vaults.length === 1 ? "" : "s"}`,
});
