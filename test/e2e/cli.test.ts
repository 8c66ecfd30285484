import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { BIN } from "../support/binary.ts";
import { assertCliOutput, commandOps } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** End-to-end: the compiled binary, as a user runs it. Build first: `bun run build`. */

let sb: Sandbox;
let commands: Awaited<ReturnType<typeof commandOps>>;

function run(args: string[], env: Record<string, string> = {}, opts: { allowPaths?: boolean } = {}) {
  const p = Bun.spawnSync([BIN, ...args], { env: { ...sb.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const stdout = p.stdout.toString();
  const stderr = p.stderr.toString();
  if (!opts.allowPaths) expect(stdout + stderr).not.toContain(sb.dir); // only `config path` may show local paths
  if (stdout.startsWith("{")) assertCliOutput(commands, args, stdout);
  return { code: p.exitCode, stdout, stderr, json: () => JSON.parse(stdout) };
}

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
  commands = await commandOps();
});
afterAll(() => sb?.cleanup());

describe("the compiled CLI", () => {
  test("--help and --version", () => {
    const help = run(["--help"]);
    expect(help.code).toBe(0);
    for (const cmd of ["search", "note", "link", "tag", "vault", "serve", "token", "config"]) expect(help.stdout).toContain(cmd);
    const sub = run(["note", "get", "--help"]);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain("--include");
    expect(run(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("reads before the index exists fail with index_missing and the fix", () => {
    const r = run(["search", "launch"]);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("index_missing");
    expect(r.stderr).toContain("indx vault index");
  });

  test("vault index builds, then a second pass changes nothing", () => {
    const first = run(["vault", "index"]);
    expect(first.code).toBe(0);
    expect(first.json().added).toBeGreaterThan(10);
    expect(first.json().warnings.map((w: any) => w.code)).toContain("frontmatter_invalid");
    const second = run(["vault", "index"]);
    expect(second.json().added + second.json().updated + second.json().deleted).toBe(0);
  });

  test("search prints JSON when piped, and other formats on request", () => {
    const r = run(["search", "rollback", "runbook"]);
    expect(r.code).toBe(0);
    expect(r.json().results[0].path).toBe("Reference/Runbook.md");
    expect(run(["search", "rollback", "--format", "files"]).stdout.split("\n")).toContain("Reference/Runbook.md");
    const nd = run(["search", "launch", "--format", "ndjson"]).stdout.trim().split("\n");
    expect(JSON.parse(nd[0]!).path).toBeTruthy();
    expect(run(["search", "launch", "--format", "csv"]).stdout.split("\n")[0]).toContain("path");
    expect(run(["search", "launch", "--format", "md"]).stdout).toContain("| --- |");
    const filtered = run(["search", "search", "--tag", "project", "--path-glob", "Projects/**"]).json();
    for (const hit of filtered.results) expect(hit.path.startsWith("Projects/")).toBe(true);
    const fm = run(["note", "list", "--fm", "status=active"]).json();
    expect(fm.notes.map((n: any) => n.path)).toEqual(["Projects/Apollo Launch.md"]);
  });

  test("note, link, tag, chunk, attachment and related commands", () => {
    const note = run(["note", "get", "Projects/Apollo Launch.md", "--include", "frontmatter,links"]).json();
    expect(note.etag).toMatch(/^[0-9a-f]{16}$/);
    expect(note.links.find((l: any) => l.linkpath === "Reference/Runbook").target).toBe("Reference/Runbook.md");
    expect(run(["note", "exists", "Welcome.md"]).code).toBe(0);
    expect(run(["note", "exists", "Nope.md"]).code).toBe(3);
    expect(run(["note", "outline", "Welcome.md"]).json().outline[0].text).toBe("Welcome");
    expect(run(["link", "backlinks", "People/Ada Lovelace.md"]).json().count).toBeGreaterThan(1);
    expect(
      run(["link", "unresolved"])
        .json()
        .unresolved.map((u: any) => u.linkpath),
    ).toContain("Compiler Notes");
    expect(run(["tag", "notes", "#person"]).json().total).toBe(2);
    expect(run(["tag", "list"]).json().tags.length).toBeGreaterThan(5);
    expect(run(["chunk", "get", "Reference/Runbook.md#1"]).json().heading).toBeTruthy();
    expect(run(["attachment", "get", "Attachments/diagram.png"]).json().mime).toBe("image/png");
    const rel = run(["related", "Projects/Apollo Launch.md"]).json();
    expect(rel.results.map((r: any) => r.path)).not.toContain("Projects/Apollo Launch.md");
    expect(run(["vault", "status"]).json().index.state).toBe("ready");
  });

  test("context: JSON when piped, a numbered reading with each note's reason on request", () => {
    const ctx = run(["context", "--path", "Projects/Apollo Launch.md", "--max-tokens", "1500"]).json();
    expect(ctx.notes[0].path).toBe("Projects/Apollo Launch.md");
    expect(ctx.tokens).toBeLessThanOrEqual(1500);
    expect(ctx.notes.find((n: any) => n.path === "People/Ada Lovelace.md").reason).toMatchObject({ kind: "typed_link", rel: "owner", hop: 1 });
    const human = run(["context", "apollo", "launch", "--format", "table"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^1\. \S.* {2}hit · \d/m);
    expect(human.stdout).toMatch(/\d+ of 4000 tokens/);
    expect(run(["context", "x", "--max-tokens", "100"]).code).toBe(2);
  });

  test("errors go to stderr with the exit codes of docs/contracts.md", () => {
    const traversal = run(["note", "get", "../secret.md"]);
    expect(traversal.code).toBe(2);
    expect(traversal.stdout).toBe("");
    expect(traversal.stderr).toContain("path_invalid");
    expect(run(["note", "get", "Nope.md"]).code).toBe(3);
    expect(run(["search", "x", "--bogus"]).code).toBe(2);
    expect(run(["search", "x", "--limit", "abc"]).code).toBe(2);
    expect(run(["frobnicate"]).code).toBe(2);
    expect(run(["search", "x", "--mode", "semantic"]).code).toBe(6);
  });

  test("config and tokens", () => {
    const path = run(["config", "path"], {}, { allowPaths: true });
    expect(path.code).toBe(0);
    expect(path.json().vault).toBe(sb.vault);
    expect(run(["config", "set", "server.port", "9999"]).code).toBe(0);
    expect(run(["config", "get", "server.port"]).json()["server.port"]).toEqual({ value: 9999, source: "file" });
    expect(run(["config", "get", "server.port"], { INDX_PORT: "7000" }).json()["server.port"].source).toBe("env");
    expect(run(["config", "set", "server.port", "nope"]).code).toBe(2);
    expect(run(["config", "reveal-api-key"]).code).toBe(3);
    const created = run(["token", "create", "--name", "ci", "--scopes", "vault:read"]).json();
    expect(created.token).toMatch(/^indx_/);
    expect(JSON.stringify(run(["token", "list"]).json())).not.toContain(created.token);
    expect(run(["token", "revoke", created.id]).code).toBe(0);
    expect(run(["token", "create", "--name", "x", "--scopes", "vault:root"]).code).toBe(2);
  });
});

describe("indx serve, end to end", () => {
  test("serves the vault; curl with the revealed token gets search results", async () => {
    const proc = Bun.spawn([BIN, "serve", "--port", "0"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
    try {
      const reader = proc.stderr.getReader();
      let seen = "";
      let url = "";
      const deadline = Date.now() + 15_000;
      while (!url && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
        url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(seen)?.[1] ?? "";
      }
      expect(url).toBeTruthy();
      expect(seen).not.toContain(sb.dir);
      const key = run(["config", "reveal-api-key"]).stdout.trim();
      expect(key).toMatch(/^indx_/);
      const res = await fetch(`${url}/v1/search?q=launch`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.data.results.length).toBeGreaterThan(0);
      expect((await fetch(`${url}/v1/search?q=launch`)).status).toBe(401);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });

  test("a second serve on a busy port exits non-zero, naming the port and how to pick another", async () => {
    const first = Bun.spawn([BIN, "serve", "--port", "0", "--no-watch"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
    const other = sandbox({ "Other.md": "# Other\n" });
    try {
      const port = await servingPort(first);
      const second = Bun.spawnSync([BIN, "serve", "--port", port, "--no-watch"], { env: other.env, stdout: "pipe", stderr: "pipe", timeout: 20_000 });
      const stderr = second.stderr.toString();
      expect(second.exitCode).toBe(2);
      expect(stderr).toContain(`Port ${port}`);
      expect(stderr).toContain("--port");
      expect(stderr).toContain("server.port");
      expect(stderr).toContain("INDX_PORT");
      expect(stderr).not.toContain(other.dir);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      first.kill();
      await first.exited;
      other.cleanup();
    }
  }, 30_000);
});

describe("the index worker in the compiled binary", () => {
  test("serve builds the index and rebuilds it in its worker; reads and writes answer meanwhile", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) files[`Notes/Note ${i}.md`] = `# Note ${i}\n\nwords zq${i}marker\n`;
    const own = sandbox(files);
    const proc = Bun.spawn([BIN, "serve", "--port", "0", "--no-watch"], { env: own.env, stdout: "pipe", stderr: "pipe" });
    try {
      const url = `http://127.0.0.1:${await servingPort(proc)}`;
      const key = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env: own.env }).stdout.toString().trim();
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const found = async (q: string) => ((await (await fetch(`${url}/v1/search?q=${q}`, { headers })).json()) as any).data.results.map((r: any) => r.path);
      expect(await found("zq42marker")).toEqual(["Notes/Note 42.md"]);

      const rebuild = fetch(`${url}/v1/vault/reindex`, { method: "POST", headers, body: JSON.stringify({ rebuild: true, embeddings: false }) });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect(await found("zq7marker")).toEqual(["Notes/Note 7.md"]);
      const put = await fetch(`${url}/v1/notes/Fresh.md`, { method: "PUT", headers, body: JSON.stringify({ body: "# Fresh\n\nquasarbeam\n" }) });
      expect(put.status).toBe(201);
      const rebuilt = (await (await rebuild).json()) as any;
      expect(rebuilt.data.rebuilt).toBe("rebuild requested");
      expect(await found("quasarbeam")).toEqual(["Fresh.md"]);
    } finally {
      proc.kill();
      await proc.exited;
      own.cleanup();
    }
  }, 30_000);
});

describe("the rows worker in the compiled binary", () => {
  test("a first build of 1,200 notes parses in the rows worker: no fallback to one thread", () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1200; i++) files[`Notes/Note ${i}.md`] = `# Note ${i}\n\nwords zq${i}marker [[Note ${(i + 1) % 1200}]]\n`;
    const own = sandbox(files);
    try {
      const p = Bun.spawnSync([BIN, "vault", "index"], { env: { ...own.env, INDX_LOG: "json" }, stdout: "pipe", stderr: "pipe" });
      expect(p.exitCode).toBe(0);
      expect(p.stderr.toString()).not.toContain("rows_worker_unavailable");
      expect(JSON.parse(p.stdout.toString()).added).toBe(1200);
      const search = Bun.spawnSync([BIN, "search", "zq777marker"], { env: own.env, stdout: "pipe" });
      expect(JSON.parse(search.stdout.toString()).results.map((r: { path: string }) => r.path)).toEqual(["Notes/Note 777.md"]);
    } finally {
      own.cleanup();
    }
  }, 60_000);
});

describe("the reader workers in the compiled binary", () => {
  test("searches answered by the reader workers see a note written a moment before", async () => {
    const own = sandbox({ "Old.md": "# Old\n\nancient words\n" });
    const proc = Bun.spawn([BIN, "serve", "--port", "0", "--no-watch"], { env: { ...own.env, INDX_READ_WORKERS: "2" }, stdout: "pipe", stderr: "pipe" });
    try {
      const url = `http://127.0.0.1:${await servingPort(proc)}`;
      const key = Bun.spawnSync([BIN, "config", "reveal-api-key"], { env: own.env }).stdout.toString().trim();
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const workersReady = async () => /^indx_read_workers (\d+)$/m.exec(await (await fetch(`${url}/metrics`, { headers })).text())?.[1];
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await workersReady()) !== "2") await Bun.sleep(20);
      expect(await workersReady()).toBe("2");
      for (let i = 0; i < 5; i++) {
        const put = await fetch(`${url}/v1/notes/Fresh ${i}.md`, { method: "PUT", headers, body: JSON.stringify({ body: `# Fresh\n\nnebula${i}word\n` }) });
        expect(put.status).toBe(201);
        const res = await fetch(`${url}/v1/search?q=nebula${i}word`, { headers });
        expect(((await res.json()) as any).data.results.map((r: any) => r.path)).toEqual([`Fresh ${i}.md`]);
      }
    } finally {
      proc.kill();
      await proc.exited;
      own.cleanup();
    }
  }, 30_000);
});

/** Reads a starting `indx serve`'s stderr until it prints its URL; returns the port. */
async function servingPort(proc: Bun.Subprocess<"ignore", "pipe", "pipe">): Promise<string> {
  const reader = proc.stderr.getReader();
  let seen = "";
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    const port = /http:\/\/127\.0\.0\.1:(\d+)/.exec(seen)?.[1];
    if (port) {
      reader.releaseLock();
      return port;
    }
  }
  throw new Error("indx serve did not print its URL");
}

describe("a reader that goes away", () => {
  test("piping a long listing into `head` ends quietly: no EPIPE stack trace, exit 0", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) files[`Notes/A note with a long name number ${i}.md`] = `# Note ${i}\n\nalpha beta ${i}\n`;
    const big = sandbox(files);
    try {
      expect(Bun.spawnSync([BIN, "vault", "index"], { env: big.env }).exitCode).toBe(0);
      // head closes the pipe after the first bytes; bash reports indx's own exit status.
      const p = Bun.spawnSync(["bash", "-c", `"${BIN}" note list --limit 1000 --json | head -c 100 >/dev/null; exit \${PIPESTATUS[0]}`], {
        env: big.env,
        stderr: "pipe",
      });
      expect(p.exitCode).toBe(0);
      expect(p.stderr.toString()).toBe("");
    } finally {
      big.cleanup();
    }
  });
});
