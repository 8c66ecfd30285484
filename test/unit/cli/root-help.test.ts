import { expect, test } from "bun:test";
import { firstSentence, HELP_TEXT } from "../../../src/cli/help.ts";
import { root } from "../../../src/cli/root.ts";
import { resolveValue, subCommandsOf } from "../../../src/cli/tree.ts";

// `indx --help` lists the commands from written-out summaries, so that it loads none of them:
// each line must still say what the command's own description says.
test("the root command list says of each command the first sentence of its own description", async () => {
  const summaries = HELP_TEXT.get(root)?.summaries ?? {};
  const subs = (await subCommandsOf(root)) ?? {};
  expect(Object.keys(summaries).sort()).toEqual(Object.keys(subs).sort());
  for (const [name, cmd] of Object.entries(subs)) {
    const meta = await resolveValue(cmd.meta ?? {});
    expect(`${name}: ${summaries[name]}`).toBe(`${name}: ${firstSentence(meta.description ?? "")}`);
  }
});
