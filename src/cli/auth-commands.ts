import type { CommandDef } from "citty";
import { IndxError } from "../core/errors.ts";
import { hashSecret, newApprovalCode } from "../oauth/secrets.ts";
import { OAuthStore } from "../oauth/store.ts";
import { Vault } from "../vault/vault.ts";
import { command } from "./command.ts";
import { configFromFlags } from "./context.ts";
import { print } from "./io.ts";
import { chooseFormat, render } from "./output.ts";

const approve = command({
  description:
    "Print a one-time code that approves one OAuth client (claude.ai, a phone app) on the consent page of `indx serve`. It works once, for ten minutes; it talks to the data folder, not the network.",
  examples: ["indx auth approve", "indx auth approve --minutes 30"],
  args: { minutes: { type: "string", description: "How long the code stays valid (1–60, default 10)." } },
  run(flags) {
    const minutes = flags.minutes === undefined ? 10 : Number(flags.minutes);
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 60)
      throw new IndxError("validation_failed", "--minutes takes a whole number from 1 to 60.", { field: "minutes" });
    const vault = Vault.open(configFromFlags(flags));
    const code = newApprovalCode();
    // Only the hash is kept: the code on this terminal is the only copy (docs/decisions.md, OAuth: the owner's proof).
    const expires = new OAuthStore(vault.ensureDataDir()).addApproval(hashSecret(code), minutes * 60_000);
    const data = { code, expires_at: expires.toISOString() };
    print(
      render(
        data,
        chooseFormat(flags, process.stdout.isTTY === true),
        () => `${code}\n(type it on the consent page; it works once, until ${expires.toLocaleTimeString()})`,
      ),
    );
  },
});

export const authCommand: CommandDef = {
  meta: { description: "Approve OAuth clients of `indx serve` (the consent page asks for the code this prints)." },
  subCommands: { approve },
};
