import { command } from "./command.ts";
import { runChecks } from "./doctor-checks.ts";
import { print } from "./io.ts";
import { chooseFormat, colorOn, render, styleFor } from "./output.ts";

/** `indx doctor`: what stands between this set-up and a working indx, each with its fix. Exit 1 when a check fails. */
export const doctorCommand = command({
  description: "Check the set-up and say how to fix what is wrong.",
  long: "Checks the config file (unknown keys, file mode), the vault folder, the data folder, the index (present, whole by SQLite's own check — at most 5 s of it unless --full — and current), sqlite-vec, the embeddings provider and model, the chat model (one short request), the serve port, the admin token, the TLS certificate (readable, its key, days to expiry), a bind `indx serve` would refuse, OAuth (on or off, server.public_url when serving beyond loopback, live grants), and the `indx service` (installed, running). Each check is ok, warn or fail with its fix; exits 1 when one fails.",
  examples: ["indx doctor", "indx doctor --vault ~/Notes --json", "indx doctor --full"],
  args: {
    full: { type: "boolean", description: "Check the whole index file however long it takes (by default the check stops after 5 s)." },
  },
  async run(flags) {
    const checks = await runChecks({ vault: flags.vault, data_dir: flags["data-dir"] }, { full: flags.full === true });
    const failed = checks.some((c) => c.status === "fail");
    const style = styleFor(colorOn());
    const mark = { ok: style.green("ok  "), warn: style.yellow("warn"), fail: style.red("FAIL") };
    const width = Math.max(...checks.map((c) => c.name.length));
    print(
      render({ ok: !failed, checks }, chooseFormat(flags, process.stdout.isTTY === true), () =>
        checks
          .map((c) => `${mark[c.status]}  ${c.name.padEnd(width)}  ${c.message}${c.fix ? `\n      ${" ".repeat(width)}  ${style.dim(`fix: ${c.fix}`)}` : ""}`)
          .join("\n"),
      ),
    );
    if (failed) process.exitCode = 1;
  },
});
