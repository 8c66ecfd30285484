import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/binary.ts";
import { assertCliOutput, commandOps } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** End-to-end writes through the compiled binary. Build first: `bun run build`. */

let sb: Sandbox;
let commands: Awaited<ReturnType<typeof commandOps>>;

function run(args: string[], stdin?: string) {
  const p = Bun.spawnSync([BIN, ...args], {
    env: sb.env,
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = p.stdout.toString();
  const stderr = p.stderr.toString();
  expect(stdout + stderr).not.toContain(sb.dir);
  if (stdout.startsWith("{")) assertCliOutput(commands, args, stdout);
  return { code: p.exitCode, stdout, stderr, json: () => JSON.parse(stdout) };
}

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  sb = sandbox({}, { fromDemo: true });
  commands = await commandOps();
  expect(run(["vault", "index"]).code).toBe(0);
});
afterAll(() => sb?.cleanup());

describe("CLI writes", () => {
  test("note update creates from stdin; replacing needs --yes or --if-match", () => {
    const created = run(["note", "update", "Inbox/From stdin.md"], "# From stdin\n\nhello #inbox\n");
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ created: true, tags: ["inbox"] });
    const refused = run(["note", "update", "Inbox/From stdin.md", "--body", "# replaced\n"]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("--yes");
    const stale = run(["note", "update", "Inbox/From stdin.md", "--body", "x", "--if-match", "0000000000000000"]);
    expect(stale.code).toBe(4);
    expect(stale.stderr).toContain("etag_mismatch");
    const yes = run(["note", "update", "Inbox/From stdin.md", "--body", "# replaced\n", "--yes"]);
    expect(yes.code).toBe(0);
    expect(readFileSync(join(sb.vault, "Inbox/From stdin.md"), "utf8")).toBe("# replaced\n");
  });

  test("note patch with --ops JSON, typed failures with exit 2", () => {
    const path = "Inbox/Patched.md";
    run(["note", "update", path, "--body", "# Patched\n\n## Tasks\n\n- [ ] one\n\n## Notes\n\ntext\n"]);
    const etag = run(["note", "get", path]).json().etag;
    const ok = run([
      "note",
      "patch",
      path,
      "--if-match",
      etag,
      "--ops",
      JSON.stringify([{ op: "append_to_section", heading: "Tasks", markdown: "- [ ] two" }]),
    ]);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(sb.vault, path), "utf8")).toBe("# Patched\n\n## Tasks\n\n- [ ] one\n- [ ] two\n\n## Notes\n\ntext\n");
    const missing = run(["note", "patch", path, "--ops", JSON.stringify([{ op: "replace_section", heading: "Nope", markdown: "x" }])]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("patch_target_not_found");
    const badJson = run(["note", "patch", path, "--ops", "[{oops"]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain("--ops");
  });

  test("note move rewrites links; --dry-run plans only", () => {
    const dry = run(["note", "move", "Inbox/Patched.md", "Archive/Patched.md", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.json().dry_run).toBe(true);
    expect(existsSync(join(sb.vault, "Inbox/Patched.md"))).toBe(true);
    const moved = run(["note", "move", "Inbox/Patched.md", "Archive/Patched.md"]);
    expect(moved.code).toBe(0);
    expect(existsSync(join(sb.vault, "Archive/Patched.md"))).toBe(true);
    expect(run(["note", "exists", "Archive/Patched.md"]).code).toBe(0);
  });

  test("note delete goes to .trash/; traversal is refused with exit 2", () => {
    expect(run(["note", "delete", "Archive/Patched.md"]).code).toBe(0);
    expect(existsSync(join(sb.vault, ".trash/Patched.md"))).toBe(true);
    const evil = run(["note", "update", "../evil.md", "--body", "x"]);
    expect(evil.code).toBe(2);
    expect(existsSync(join(sb.dir, "evil.md"))).toBe(false);
  });

  test("a stray extra argument (an unquoted path with a space) is refused, not ignored", () => {
    const r = run(["note", "delete", "Inbox/From", "stdin.md"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unexpected argument");
    expect(existsSync(join(sb.vault, "Inbox/From stdin.md"))).toBe(true);
  });

  test("indx events shows past events and --follow streams a write made by another process", async () => {
    const past = run(["events", "--last", "5", "--kinds", "note"]);
    expect(past.code).toBe(0);
    const lines = past.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(5);
    expect(lines.every((e) => e.kind.startsWith("note."))).toBe(true);

    const follower = Bun.spawn([BIN, "events", "--follow", "--last", "0", "--kinds", "note.created"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
    await Bun.sleep(300);
    expect(run(["note", "update", "Inbox/Followed.md", "--body", "# Followed\n"]).code).toBe(0);
    const reader = follower.stdout.getReader();
    let text = "";
    const deadline = Date.now() + 5000;
    while (!text.includes("Followed.md") && Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), Bun.sleep(200).then(() => null)]);
      if (chunk?.value) text += new TextDecoder().decode(chunk.value);
    }
    follower.kill("SIGINT");
    await follower.exited;
    expect(JSON.parse(text.trim().split("\n")[0]!)).toMatchObject({ kind: "note.created", path: "Inbox/Followed.md", source: "indx" });
  });

  test("writes leave events in events.log", () => {
    const log = readFileSync(join(sb.dataDir, "events.log"), "utf8");
    expect(log).toContain('"kind":"note.created"');
    expect(log).toContain('"kind":"note.moved"');
    expect(log).toContain('"kind":"note.deleted"');
  });
});

describe("CLI reads are current without a server", () => {
  test("a note deleted or added on disk is seen by the next search; --no-refresh answers from the index as last built", () => {
    writeFileSync(join(sb.vault, "Fresh zebra.md"), "# Fresh zebra\n\nquokkaword lives here\n");
    expect(run(["search", "quokkaword", "--no-refresh"]).json().results).toHaveLength(0);
    expect(
      run(["search", "quokkaword"])
        .json()
        .results.map((r: { path: string }) => r.path),
    ).toEqual(["Fresh zebra.md"]);
    rmSync(join(sb.vault, "Fresh zebra.md"));
    expect(run(["search", "quokkaword", "--no-refresh"]).json().results).toHaveLength(1);
    const after = run(["search", "quokkaword"]);
    expect(after.json().results).toHaveLength(0);
    expect(after.stderr).toBe("");

    // Another process holds the index's write lock: the answer comes from the index as last built, with a warning.
    writeFileSync(join(sb.vault, "Fresh zebra.md"), "# Fresh zebra\n\nquokkaword again\n");
    const holder = new Database(join(sb.env.INDX_DATA_DIR!, "index.db"));
    holder.run("BEGIN IMMEDIATE");
    try {
      const stale = run(["search", "quokkaword"]);
      expect(stale.code).toBe(0);
      expect(stale.json().results).toHaveLength(0);
      expect(stale.stderr).toContain("may be stale");
    } finally {
      holder.run("ROLLBACK");
      holder.close();
    }
    expect(run(["search", "quokkaword"]).json().results).toHaveLength(1);
  });
});
