import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { IndxError } from "../core/errors.ts";
import { followLog } from "../events/follow.ts";
import { EVENT_KINDS, type EventKind, parseKinds, type VaultEvent } from "../events/types.ts";
import { Vault } from "../vault/vault.ts";
import { command } from "./command.ts";
import { configFromFlags } from "./context.ts";
import { print } from "./io.ts";

/** `indx events`: the vault's recent events from events.log, and with --follow the new ones as they come. */
export const eventsCommand = command({
  description: "Show the vault's events (writes, changes seen on disk, index updates); --follow streams new ones.",
  examples: ["indx events --last 50", "indx events --follow --kinds note.moved,tag.renamed"],
  args: {
    follow: { type: "boolean", alias: "f", description: "Keep printing events as they happen (Ctrl-C to stop)." },
    last: { type: "string", description: "How many past events to show first (default 20; 0 for none).", valueHint: "n" },
    kinds: { type: "string", description: `Only these kinds or prefixes, comma-separated (${EVENT_KINDS.join(", ")}).`, valueHint: "list" },
  },
  async run(flags) {
    const vault = Vault.open(configFromFlags(flags));
    const file = join(vault.dataDir, "events.log");
    const last = flags.last === undefined ? 20 : Number(flags.last);
    if (!Number.isInteger(last) || last < 0) throw new IndxError("validation_failed", "--last takes a whole number.", { option: "--last" });
    const kinds = parseKinds(flags.kinds ? [flags.kinds] : []);
    const wanted = kinds && ((kind: string) => kinds.has(kind as EventKind));
    const json = flags.json === true || process.stdout.isTTY !== true;
    const show = (e: VaultEvent) => {
      if (wanted && !wanted(e.kind)) return;
      print(json ? JSON.stringify(e) : human(e));
    };

    if (last > 0 && existsSync(file)) {
      const lines = readFileSync(file, "utf8").trim().split("\n").filter(Boolean);
      const events = lines.flatMap((l) => {
        try {
          return [JSON.parse(l) as VaultEvent];
        } catch {
          return [];
        }
      });
      for (const e of events.filter((e) => !wanted || wanted(e.kind)).slice(-last)) show(e);
    }
    if (!flags.follow) return;
    vault.ensureDataDir();
    const stop = followLog(file, show);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
      // Followed from a pipe that closes (`| head`): stop instead of writing into the void.
      process.stdout.once("error", resolve);
    });
    stop();
  },
});

function human(e: VaultEvent): string {
  const auth = e.auth ? [e.auth.client_name ?? e.auth.client_id, e.auth.grant_id].filter(Boolean).join(" ") : "";
  const what = e.path ?? (e.from && e.to ? `${e.from} → ${e.to}` : e.count !== undefined ? `${e.count} file${e.count === 1 ? "" : "s"}` : auth);
  // Who did it (the audit log, docs/permissions.md): the surface and the token's id, never the token.
  const by = e.surface ?? e.ai?.surface;
  const token = e.token_id ?? e.ai?.token_id;
  const who = by ? `by ${by}${token ? ` ${token}` : ""}` : "";
  const extra = [e.op, e.auth?.reason, e.auth?.scopes?.join(" "), e.duration_ms !== undefined ? `${e.duration_ms} ms` : "", who].filter(Boolean).join(", ");
  return `${e.time}  ${e.kind.padEnd(14)} ${e.source.padEnd(8)} ${what}${extra ? `  (${extra})` : ""}`;
}
