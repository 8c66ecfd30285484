import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/binary.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** End-to-end: the CLI that helps a person (init, doctor, completions, help, suggestions, output). */

let sb: Sandbox;

function run(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const p = Bun.spawnSync([BIN, ...args], { env: { ...sb.env, ...env }, stdout: "pipe", stderr: "pipe", cwd });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString(), json: () => JSON.parse(p.stdout.toString()) };
}

/** Runs the binary on a pseudo-terminal (util-linux `script`), as a person at a terminal would see it. */
function onTerminal(args: string[], env: Record<string, string> = {}, opts: { input?: string; timeoutMs?: number } = {}) {
  const cmd = [BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const p = Bun.spawnSync(["script", "-qefc", `stty cols 80 rows 40; ${cmd}`, "/dev/null"], {
    env: { ...sb.env, TERM: "xterm", ...env },
    stdin: opts.input === undefined ? "ignore" : Buffer.from(opts.input),
    stdout: "pipe",
    stderr: "pipe",
    timeout: opts.timeoutMs ?? 20_000,
  });
  return { code: p.exitCode, out: p.stdout.toString().replaceAll("\r", "") };
}

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
});
afterAll(() => sb?.cleanup());

describe("indx init (non-interactive)", () => {
  test("writes the config with an absolute vault path, builds the index, creates the token, prints MCP set-ups", () => {
    const home = join(sb.dir, "init-home");
    mkdirSync(home);
    const env = { INDX_VAULT: "", INDX_DATA_DIR: "", HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "share") };
    const r = run(["init", "--vault", "vault"], env, sb.dir);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out.vault).toBe(sb.vault);
    expect(out.index.added).toBeGreaterThan(10);
    expect(out.token_created).toBe(true);
    const config = readFileSync(join(home, "config", "indx", "config.toml"), "utf8");
    expect(config).toContain(`vault = "${sb.vault}"`);
    expect(config).toContain("api_key");
    // The name comes before the variadic --env, which would swallow it otherwise.
    expect(out.mcp.claude_code).toMatch(/^claude mcp add indx --env INDX_VAULT=.+ -- .+ mcp$/);
    expect(JSON.parse(out.mcp.claude_desktop).mcpServers.indx.args).toEqual(["mcp"]);
    expect(JSON.parse(out.mcp.cursor).mcpServers.indx.env.INDX_VAULT).toBe(sb.vault);
    expect(out.mcp.codex).toContain("[mcp_servers.indx]");

    // The config now names the vault: a search needs no --vault.
    expect(run(["search", "rollback"], env).json().results[0].path).toBe("Reference/Runbook.md");
    // Run again: the token is kept.
    expect(run(["init", "--vault", sb.vault], env).json().token_created).toBe(false);
  });

  test("the MCP set-ups name the binary as PATH reaches it, not the file a package manager's link resolves to", () => {
    const bin = join(sb.dir, "pathbin");
    mkdirSync(bin, { recursive: true });
    // dist/indx stands for the versioned file (…/Cellar/indx/1.2.3/bin/indx), the link for the one on PATH.
    symlinkSync(BIN, join(bin, "indx"));
    const p = Bun.spawnSync([join(bin, "indx"), "init", "--vault", sb.vault, "--no-index", "--json"], {
      env: { ...sb.env, PATH: `${bin}:${process.env.PATH}` },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(p.exitCode).toBe(0);
    const out = JSON.parse(p.stdout.toString());
    expect(out.mcp.claude_code).toEndWith(`-- ${join(bin, "indx")} mcp`);
    expect(JSON.parse(out.mcp.claude_desktop).mcpServers.indx.command).toBe(join(bin, "indx"));
  });

  test("a vault folder that does not exist is refused, naming the path it tried", () => {
    const r = run(["init", "--vault", "no-such-folder"], { INDX_VAULT: "" }, sb.dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(join(sb.dir, "no-such-folder"));
  });
});

describe("indx doctor", () => {
  test("a healthy vault passes every check", () => {
    expect(run(["vault", "index"]).code).toBe(0);
    const r = run(["doctor"]);
    expect(r.code).toBe(0);
    const checks: { name: string; status: string }[] = r.json().checks;
    expect(checks.filter((c) => c.status === "fail")).toEqual([]);
    for (const name of ["vault", "index", "data_dir", "sqlite_vec", "port", "config"]) expect(checks.map((c) => c.name)).toContain(name);
    expect(checks.find((c) => c.name === "sqlite_vec")!.status).toBe("ok");
  });

  test("a broken set-up names each problem with its fix, and exits non-zero", () => {
    const other = sandbox({}, { fromDemo: true });
    try {
      mkdirSync(join(other.dir, "config", "indx"), { recursive: true });
      writeFileSync(join(other.dir, "config", "indx", "config.toml"), '[server]\nprot = 9000\napi_key = "indx_x"\n');
      chmodSync(join(other.dir, "config", "indx", "config.toml"), 0o644);
      const busy = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
      try {
        const p = Bun.spawnSync([BIN, "doctor"], {
          env: {
            ...other.env,
            INDX_PORT: String(busy.port),
            INDX_EMBEDDINGS_PROVIDER: "ollama",
            INDX_EMBEDDINGS_MODEL: "m",
            INDX_OLLAMA_URL: "http://127.0.0.1:9",
          },
          stdout: "pipe",
          stderr: "pipe",
        });
        expect(p.exitCode).toBe(1);
        const checks: { name: string; status: string; message: string; fix?: string }[] = JSON.parse(p.stdout.toString()).checks;
        const by = (name: string) => checks.find((c) => c.name === name)!;
        expect(by("index")).toMatchObject({ status: "fail", fix: "indx vault index" });
        expect(by("config").status).toBe("warn");
        expect(by("config").message).toContain("server.prot");
        expect(by("config").message).toContain("server.port");
        expect(by("config_mode")).toMatchObject({ status: "warn" });
        expect(by("config_mode").fix).toContain("chmod 600");
        expect(by("port").status).toBe("warn");
        expect(by("port").message).toContain(String(busy.port));
        expect(by("provider").status).toBe("fail");
      } finally {
        busy.stop(true);
      }
    } finally {
      other.cleanup();
    }
  });
});

describe("shell completions", () => {
  test("bash completes commands, flags, enum values and note paths", () => {
    expect(run(["vault", "index"]).code).toBe(0);
    const script = run(["completion", "bash"]).stdout;
    const complete = (line: string) => {
      const words = line.split(" ");
      const src = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; COMP_LINE='${line}'; COMP_POINT=${line.length}; _indx; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const p = Bun.spawnSync(["bash", "-c", src], { env: { ...sb.env, PATH: `${join(BIN, "..")}:${process.env.PATH}` }, stdout: "pipe", stderr: "pipe" });
      return p.stdout.toString().trim().split("\n");
    };
    expect(complete("indx no")).toEqual(["note"]);
    expect(complete("indx note get Projects/Ap")).toEqual(["Projects/Apollo Launch.md"]);
    expect(complete("indx search x --mode ")).toEqual(expect.arrayContaining(["lexical", "semantic", "hybrid"]));
    expect(complete("indx search x --li")).toEqual(["--limit"]);
    expect(complete("indx tag notes project/")).toEqual(["project/active", "project/research"]);
    for (const shell of ["zsh", "fish", "powershell"]) {
      const r = run(["completion", shell]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("__complete");
    }
  });
});

describe("help", () => {
  test("indx help <command>, an example on every command, wrapped to the width, enum values listed", () => {
    const help = run(["help", "search"], { COLUMNS: "80" });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:");
    expect(help.stdout).toContain("--mode <lexical|semantic|hybrid|auto>");
    for (const line of help.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    const top = run(["--help"], { COLUMNS: "80" }).stdout;
    for (const line of top.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    const commandsBlock = top.slice(top.indexOf("Commands:"), top.indexOf("\n\n", top.indexOf("Commands:")));
    expect(commandsBlock.split("\n").length).toBeGreaterThan(10); // one line each, no blank lines between them

    const leaves = [
      "search",
      "related",
      "note get",
      "note get-many",
      "note list",
      "note outline",
      "note exists",
      "note update",
      "note patch",
      "note delete",
      "note move",
    ];
    leaves.push("link backlinks", "link forward", "link unresolved", "link orphans", "tag list", "tag notes", "tag rename", "canvas get");
    leaves.push("canvas create", "canvas patch", "chunk get", "attachment get", "vault status", "vault index", "vault config get", "serve", "mcp");
    leaves.push("events", "token create", "token list", "token revoke", "config get", "config set", "config path", "init", "doctor", "completion");
    for (const leaf of leaves) {
      const r = run([...leaf.split(" "), "--help"]);
      expect(r.code).toBe(0);
      expect(`${leaf}\n${r.stdout}`).toContain(`Examples:\n  indx ${leaf}`);
    }
  });
});

describe("did you mean", () => {
  test("commands, flags, config keys and note paths; an Obsidian-style name resolves like a wikilink", () => {
    const cmd = run(["serch", "x"]);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain("Did you mean search?");
    expect(run(["note", "gett", "x"]).stderr).toContain("Did you mean get?");
    expect(run(["search", "x", "--limt", "3"]).stderr).toContain("Did you mean --limit?");
    expect(run(["config", "get", "server.prot"]).stderr).toContain("Did you mean server.port?");
    const missing = run(["note", "get", "Projects/Apollo Lunch.md"]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("Did you mean Projects/Apollo Launch.md?");
    const byName = run(["note", "get", "Apollo Launch"]);
    expect(byName.code).toBe(0);
    expect(byName.json().path).toBe("Projects/Apollo Launch.md");
  });
});

describe("arguments and errors", () => {
  test("global flags anywhere", () => {
    const env = { INDX_VAULT: "" };
    expect(run(["--vault", sb.vault, "search", "rollback"], env).json().results[0].path).toBe("Reference/Runbook.md");
    expect(run(["--json", "--vault", sb.vault, "note", "get", "Welcome.md"], env).json().path).toBe("Welcome.md");
    expect(run(["search", "--vault", sb.vault, "rollback"], env).json().results[0].path).toBe("Reference/Runbook.md");
  });

  test("validation errors say what is allowed, in words", () => {
    const r = run(["search", "x", "--mode", "fuzzy"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--mode must be lexical, semantic, hybrid or auto");
    expect(r.stderr).not.toContain("Expected");
    expect(run(["search", "x", "--limit", "lots"]).stderr).toContain("--limit must be a whole number");
  });

  test("config set vault stores an absolute path, refuses one that does not exist; unknown keys in the file are warned about", () => {
    const home = join(sb.dir, "cfg-home");
    mkdirSync(home);
    const env = { INDX_VAULT: "", XDG_CONFIG_HOME: join(home, "config") };
    expect(run(["config", "set", "vault", "."], env, sb.vault).code).toBe(0);
    expect(readFileSync(join(home, "config", "indx", "config.toml"), "utf8")).toContain(`vault = "${sb.vault}"`);
    const bad = run(["config", "set", "vault", "nowhere"], env, sb.dir);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain(join(sb.dir, "nowhere"));
    writeFileSync(join(home, "config", "indx", "config.toml"), `vault = "${sb.vault}"\n[search]\ndefault_limt = 3\n`);
    const warned = run(["search", "rollback"], env);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain("unknown key search.default_limt");
    expect(warned.stderr).toContain("Did you mean search.default_limit?");
  });

  test("a missing vault folder is named in the error", () => {
    const r = run(["search", "x"], { INDX_VAULT: join(sb.dir, "gone") });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(join(sb.dir, "gone"));
  });

  test("an empty vault folder is a warning, not a silent success", () => {
    const empty = sandbox();
    try {
      const p = Bun.spawnSync([BIN, "vault", "index"], { env: empty.env, stdout: "pipe", stderr: "pipe" });
      expect(p.exitCode).toBe(0);
      expect(JSON.parse(p.stdout.toString()).warnings.map((w: { code: string }) => w.code)).toContain("vault_empty");
      expect(p.stderr.toString()).toContain("no notes");
    } finally {
      empty.cleanup();
    }
  });
});

describe("output", () => {
  test("note get --raw > file equals the note's bytes", () => {
    const out = join(sb.dir, "raw.md");
    const p = Bun.spawnSync(["sh", "-c", `'${BIN}' note get 'Projects/Apollo Launch.md' --raw > '${out}'`], { env: sb.env });
    expect(p.exitCode).toBe(0);
    expect(Buffer.compare(readFileSync(out), readFileSync(join(sb.vault, "Projects", "Apollo Launch.md")))).toBe(0);
  });

  test("attachment get --output FILE writes the raw bytes", () => {
    const out = join(sb.dir, "diagram.png");
    const r = run(["attachment", "get", "Attachments/diagram.png", "--output", out]);
    expect(r.code).toBe(0);
    expect(Buffer.compare(readFileSync(out), readFileSync(join(sb.vault, "Attachments", "diagram.png")))).toBe(0);
  });

  test("--json a,b selects fields, of the result or of each row", () => {
    expect(run(["vault", "status", "--json", "name,index"]).json()).toEqual({ name: "vault", index: expect.any(Object) });
    const rows = run(["search", "rollback", "--json", "path,score"]).json();
    expect(rows.length).toBeGreaterThan(0);
    expect(Object.keys(rows[0]).sort()).toEqual(["path", "score"]);
    const bad = run(["search", "rollback", "--json=path,scroe"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Did you mean score?");
  });
});

describe("on a terminal", () => {
  test("indx mcp says it is waiting for a client", () => {
    const t = onTerminal(["mcp"], {}, { input: "", timeoutMs: 8000 });
    expect(t.out).toContain("waiting for an MCP client");
  });

  test("the index progress bar is cleared when done", () => {
    const other = sandbox({}, { fromDemo: true });
    try {
      const t = onTerminal(["vault", "index"], { ...other.env });
      expect(t.code).toBe(0);
      expect(t.out).toMatch(/indexed \d+ files/);
      // Whatever bar was drawn ends erased (\x1b[2K) before the summary.
      if (t.out.includes("%")) expect(t.out).toContain("\x1b[2K");
    } finally {
      other.cleanup();
    }
  });
});
