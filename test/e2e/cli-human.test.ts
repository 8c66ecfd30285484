import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { BIN } from "../support/binary.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The human output: what a person at a terminal sees. The binary runs in a pseudo-terminal, since
 * piped stdout gets JSON. Build first: `bun run build`.
 */
const ESC = "\x1b";

let sb: Sandbox;

async function tty(args: string[], env: Record<string, string> = { NO_COLOR: "1" }): Promise<{ code: number; text: string }> {
  let text = "";
  const decoder = new TextDecoder();
  const p = Bun.spawn([BIN, ...args], {
    env: { ...sb.env, ...env },
    terminal: { cols: 400, rows: 50, data: (_t, chunk) => void (text += decoder.decode(chunk, { stream: true })) },
  });
  const code = await p.exited;
  p.terminal?.close();
  return { code, text: text.replaceAll("\r\n", "\n") };
}

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
  expect((await tty(["vault", "index", "--no-embeddings"])).code).toBe(0);
});
afterAll(() => sb?.cleanup());

describe("human output on a terminal", () => {
  test("search: path › heading and score, the snippet, the next cursor; matches highlighted in colour", async () => {
    const plain = await tty(["search", "launch", "--limit", "1"]);
    expect(plain.text).toMatch(
      /^Projects\/Apollo Launch\.md › Apollo Launch {2}\d\.\d{3}\n {4}# Apollo Launch The launch plan for the Apollo release: .*\nmore: --cursor \S+\n$/,
    );
    const color = await tty(["search", "launch", "--limit", "1"], {});
    expect(color.text).toContain(`${ESC}[1mProjects/Apollo Launch.md${ESC}[0m${ESC}[2m › Apollo Launch${ESC}[0m`);
    // The `# Apollo Launch` line repeats the title: it counts (and is marked) as a title match only.
    expect(color.text).toContain(`# Apollo Launch The ${ESC}[33mlaunch${ESC}[0m plan`);
    expect((await tty(["search", "zzzqqqxx"])).text).toBe("No results.\n");
  });

  test("lists: notes, outline, tags, backlinks, forward and unresolved links", async () => {
    expect((await tty(["note", "list", "--limit", "2"])).text).toMatch(/^Daily\/2026-01-05\.md\nDaily\/2026-01-06\.md\nmore: --cursor \S+\n$/);
    expect((await tty(["note", "outline", "Projects/Apollo Launch.md"])).text).toBe(
      "# Apollo Launch  L9\n  ## Goals  L14\n  ## Risks  L21\n    ### Mitigations  L26\n  ## Timeline  L30\n",
    );
    expect((await tty(["tag", "list"])).text).toStartWith("#daily  3\n#person  2\n");
    expect((await tty(["tag", "notes", "meeting"])).text).toBe("Daily/2026-01-05.md\n");
    expect((await tty(["link", "backlinks", "Projects/Apollo Launch.md"])).text).toStartWith("People/Ada Lovelace.md:9  [[Apollo Launch]]\n");
    expect((await tty(["link", "backlinks", "Inbox.md"])).text).toBe("No results.\n");
    expect((await tty(["link", "forward", "Welcome.md"])).text).toStartWith(
      "Projects/Apollo Launch.md  L12 [[Projects/Apollo Launch|the Apollo launch project]]\n",
    );
    expect((await tty(["link", "unresolved"])).text).toBe("Compiler Notes  1× in People/Grace Hopper.md\n");
  });

  test("reads: note get shows the body (or the whole file), other parts as sections; chunk get its text, others key: value lines", async () => {
    expect((await tty(["note", "get", "Welcome.md"])).text).toStartWith("# Welcome\n\nThis vault shows");
    expect((await tty(["note", "get", "Welcome.md", "--include", "content"])).text).toStartWith("---\ntitle: Welcome to the demo vault\n");
    // Other parts: sections a person reads, not key: value lines with JSON in them (issue 29).
    const tags = (await tty(["note", "get", "Welcome.md", "--include", "tags"])).text;
    expect(tags).toStartWith("Welcome.md  Welcome to the demo vault");
    expect(tags).toContain("Tags\n  #meta");
    expect((await tty(["chunk", "get", "Welcome.md#0"])).text).toEndWith("or browse the [[Reference/Glossary#Terms|glossary terms]].\n");
    const exists = await tty(["note", "exists", "Nope.md"]);
    expect(exists.code).toBe(3);
    expect(exists.text).toBe("path: Nope.md\nexists: false\nkind: \n");
  });

  test("writes: the summary line, then the planned line changes and how to apply them", async () => {
    const dry = await tty(["tag", "rename", "meeting", "meet", "--dry-run"]);
    expect(dry.text).toMatch(
      /^would rename #meeting → #meet: 1 occurrence in 1 note\nDaily\/2026-01-05\.md\n {2}L7\n {2}- .*#meeting\n {2}\+ .*#meet\napply with: --plan-etag [0-9a-f]+\n$/,
    );
    expect((await tty(["note", "update", "New.md", "--body", "hello"])).text).toMatch(/^created New\.md \(etag [0-9a-f]+\)\n$/);
  });
});
