import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { complete } from "../../src/cli/completion.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * The CLI on a terminal (issue 29): human output laid out for the terminal's real width (80 when
 * piped), human views of `note get --include` and `canvas get`, completions that leave files to
 * the shell and know the config keys, and `init` printing paths as the user sees them.
 */

const MAIN = `${import.meta.dir}/../../src/main.ts`;
const LONG_TITLE = "A project whose title is much longer than forty characters, to see it whole";
let sb: Sandbox;

const baseEnv = () => {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...sb.env, NO_COLOR: "1" };
  delete env.COLUMNS;
  delete env.FORCE_COLOR;
  return env;
};

function run(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { env: { ...baseEnv(), ...opts.env }, cwd: opts.cwd, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** Runs the CLI on a pseudo-terminal (util-linux `script`) of `cols` columns, COLUMNS unset: the width comes from the terminal. */
function onTerminal(args: string[], cols: number) {
  const cmd = ["bun", MAIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const p = Bun.spawnSync(["script", "-qefc", `stty cols ${cols} rows 40; ${cmd}`, "/dev/null"], {
    env: { ...baseEnv(), TERM: "xterm" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  return { code: p.exitCode, out: p.stdout.toString().replaceAll("\r", "") };
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

beforeAll(() => {
  sb = sandbox({
    "Projects/Long.md": `---\ntags: [project]\nstatus: an unusually long status sentence for a table cell\nowner: "[[Someone With A Long Name]]"\nsummary: another long cell that will not fit next to the others\n---\n# ${LONG_TITLE}\n\n## Goals\n\nThe launch of the rocket is a long sentence about the launch that goes on and on past any narrow terminal, launch included.\n\nSee [[Short]].\n\n- [ ] check the launch\n`,
    "Projects/Short.md": "---\ntags: [project]\nstatus: ok\n---\n# Short\n\nLinks to [[Long]].\n",
    "Wide.base":
      'filters:\n  and:\n    - file.hasTag("project")\nviews:\n  - type: table\n    name: All\n    order:\n      - file.name\n      - status\n      - owner\n      - summary\n',
    "Board.canvas": JSON.stringify({
      nodes: [
        { id: "n1", type: "file", file: "Projects/Long.md", x: 0, y: 0, width: 400, height: 300 },
        { id: "n2", type: "text", text: "Plan overview", x: 500, y: 0, width: 250, height: 60 },
      ],
      edges: [{ id: "e1", fromNode: "n2", toNode: "n1", label: "explains" }],
    }),
  });
  expect(run(["vault", "index"]).code).toBe(0);
});
afterAll(() => sb?.cleanup());

describe("terminal width outside --help", () => {
  test("a base table uses a wide terminal's room: a long title is shown whole at 200 columns", () => {
    const wide = onTerminal(["base", "query", "Wide.base"], 200);
    expect(wide.code).toBe(0);
    expect(wide.out).toContain("Long.md");
    expect(wide.out).toContain("an unusually long status sentence for a table cell");
  });

  test("a base table fits a narrow terminal, and 80 columns when piped", () => {
    const narrow = onTerminal(["base", "query", "Wide.base"], 60);
    expect(narrow.code).toBe(0);
    for (const l of lines(narrow.out)) expect({ l, length: l.length <= 60 }).toEqual({ l, length: true });
    const piped = run(["base", "query", "Wide.base", "--format", "table"]);
    expect(piped.code).toBe(0);
    for (const l of lines(piped.stdout)) expect({ l, length: l.length <= 80 }).toEqual({ l, length: true });
    expect(lines(piped.stdout).some((l) => l.length > 70)).toBe(true);
  });

  test("search snippets wrap to a narrow terminal", () => {
    const r = onTerminal(["search", "launch", "rocket"], 40);
    expect(r.code).toBe(0);
    expect(r.out).toContain("launch");
    for (const l of lines(r.out).filter((l) => l.startsWith("    "))) expect({ l, length: l.length <= 40 }).toEqual({ l, length: true });
  });
});

describe("human views of note get --include and canvas get", () => {
  test("note get --include on a terminal prints sections, not JSON; piped it is JSON", () => {
    const args = ["note", "get", "Projects/Long.md", "--include", "frontmatter,outline,links,backlinks,tasks"];
    const r = onTerminal(args, 100);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('{"');
    expect(r.out).toContain("Outline");
    expect(r.out).toContain("## Goals");
    expect(r.out).toContain("status: an unusually long status sentence");
    expect(r.out).toContain("[[Short]] → Projects/Short.md");
    expect(r.out).toContain("Projects/Short.md:");
    expect(r.out).toContain("[ ] check the launch");
    const piped = run(args);
    expect(JSON.parse(piped.stdout).outline[0].text).toBe(LONG_TITLE);
  });

  test("note get without --include still prints the note's text", () => {
    const r = onTerminal(["note", "get", "Projects/Short.md"], 100);
    expect(r.out).toContain("Links to [[Long]].");
    expect(r.out).not.toContain("Backlinks");
  });

  test("canvas get on a terminal lists nodes and edges; piped it is JSON", () => {
    const r = onTerminal(["canvas", "get", "Board.canvas"], 100);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('{"');
    expect(r.out).toContain("Projects/Long.md");
    expect(r.out).toContain("Plan overview");
    expect(r.out).toContain("n2 → n1");
    expect(r.out).toContain("explains");
    expect(JSON.parse(run(["canvas", "get", "Board.canvas"]).stdout).canvas.nodes).toHaveLength(2);
  });
});

describe("completions", () => {
  test("a file or folder on disk is left to the shell's own completion", async () => {
    expect(await complete(["init", "--vault", "~/No"])).toEqual(["__indx_dirs__"]);
    expect(await complete(["search", "x", "--data-dir", ""])).toEqual(["__indx_dirs__"]);
    expect(await complete(["note", "update", "A.md", "--body-file", "no"])).toEqual(["__indx_files__"]);
    expect(await complete(["attachment", "put", "--file", ""])).toEqual(["__indx_files__"]);
    expect(await complete(["config", "set", "vault", "~/"])).toEqual(["__indx_dirs__"]);
  });

  test("config get and set complete the keys, then a key's values", async () => {
    expect(await complete(["config", "get", "search.def"])).toContain("search.default_limit");
    expect(await complete(["config", "get", "server.api"])).toEqual(["server.api_key"]);
    const settable = await complete(["config", "set", ""]);
    expect(settable).toContain("ai.deny_globs");
    expect(settable).not.toContain("server.api_key");
    expect(await complete(["config", "set", "ai.cache.enabled", ""])).toEqual(["true", "false"]);
  });

  test("bash: the script hands a file argument to bash's default completion", () => {
    const script = run(["completion", "bash"]).stdout;
    const line = "indx init --vault ~/No";
    const words = line.split(" ");
    const src = [
      // The real compopt works only inside a completion; this one says what it was asked.
      'compopt() { echo "compopt $*"; }',
      `indx() { bun '${MAIN}' "$@"; }`,
      script,
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _indx; echo "n=\${#COMPREPLY[@]}"`,
    ].join("\n");
    const p = Bun.spawnSync(["bash", "-c", src], { env: baseEnv(), stdout: "pipe", stderr: "pipe" });
    expect(p.stdout.toString().trim().split("\n")).toEqual(["compopt -o dirnames", "n=0"]);
  });
});

describe("init prints paths as the user sees them", () => {
  test("--vault . in a folder reached through a symlink stores and prints the symlinked path", () => {
    const real = join(sb.dir, "real-notes");
    const link = join(sb.dir, "Notes");
    mkdirSync(real, { recursive: true });
    symlinkSync(real, link);
    const r = run(["init", "--vault", ".", "--no-index", "--json"], { cwd: link, env: { PWD: link } });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { vault: string; config: string; mcp: { claude_code: string } };
    expect(out.vault).toBe(link);
    expect(out.mcp.claude_code).toContain(`INDX_VAULT=${link}`);
    expect(readFileSync(out.config, "utf8")).toContain(link);
    const sub = run(["init", "--vault", "../Notes", "--no-index", "--json"], { cwd: link, env: { PWD: link } });
    expect(JSON.parse(sub.stdout).vault).toBe(link);
  });
});
