import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CommandDef } from "citty";
import { HELP_TEXT } from "../../src/cli/help.ts";
import { root } from "../../src/cli/root.ts";
import { subCommandsOf } from "../../src/cli/tree.ts";
import { BIN } from "../support/binary.ts";
import { DEMO_VAULT } from "../support/vault.ts";

/**
 * Every example of `--help` (all commands) and every `indx` line of the README's shell blocks runs
 * against the binary, on a fresh copy of the demo vault (fixtures/demo-vault) plus the notes and
 * files the examples name, and exits 0 or its documented code, so the examples cannot drift.
 * A line is run by bash as printed, with `indx` on PATH.
 */

/** Lines that cannot run here, each with its reason; everything else must run. */
const SKIP: Record<string, string> = {
  "indx init": "asks for the vault folder on a terminal (cli-help.test.ts answers it on a pseudo-terminal)",
  "indx serve": "a server: it runs until stopped (the e2e server tests run it)",
  "indx serve --port 9000 --vault ~/Notes": "a server: it runs until stopped",
  "indx config set server.tls_cert /etc/indx/fullchain.pem && indx config set server.tls_key /etc/indx/privkey.pem && indx serve --host 0.0.0.0":
    "a server, with certificate files this machine does not have (deploy-tls.test.ts serves https with its own)",
  "indx serve --host 0.0.0.0 --insecure-bind   # plain http on the LAN, knowingly": "a server on every interface (deploy-proxy.test.ts runs it)",
  "indx service install --vault ~/Notes": "installs and starts a user service (service-cli.test.ts runs it with a stand-in systemctl)",
  "indx service install --binary /usr/local/bin/indx": "installs and starts a user service (service-cli.test.ts)",
  "indx health --url https://notes.example.com/health": "asks a server on the internet",
  "indx mcp": "an MCP server on stdio: it runs until its client leaves (mcp-stdio.test.ts)",
  "indx mcp --read-only": "an MCP server on stdio",
  "indx events --follow --kinds note.moved,tag.renamed": "follows events until stopped",
  "claude mcp add indx -- indx mcp": "Claude Code's own command",
  'indx completion zsh > "${fpath[1]}/_indx"': "zsh syntax (its fpath array), run by zsh",
  "indx completion powershell | Out-String | Invoke-Expression": "PowerShell syntax",
  'claude mcp add --transport http indx http://127.0.0.1:8787/mcp --header "Authorization: Bearer $(indx config reveal-api-key)"':
    "Claude Code's own command, with `indx serve` running",
  'curl -H "Authorization: Bearer $(indx config reveal-api-key)" http://127.0.0.1:8787/v1/vault/status': "needs `indx serve` running",
};

/**
 * Documented exit codes other than 0 (README "Exit codes": 6 is AI unavailable; "Grounded AI":
 * without a provider the AI commands exit 6; semantic search and re-embedding need an embeddings
 * provider, which the examples' vault does not configure).
 */
function expectedCode(line: string): number {
  if (/--mode semantic|--reembed/.test(line)) return 6;
  if (/^(cat [^|]+\| )?indx ai (ask|summarize|extract|tag|metadata)\b/.test(line)) return 6;
  if (/^indx ai toc --moc/.test(line)) return 6;
  if (/^indx ai relate\b/.test(line)) return 6;
  // No server runs while the examples do: `indx health` says so with exit 1.
  if (/^indx health$/.test(line)) return 1;
  return 0;
}

/** Notes and files the examples name that the demo vault does not have. */
const EXTRA_NOTES: Record<string, string> = {
  "Projects/Alpha.md": "---\nstatus: active\ntags: [project/alpha]\n---\n# Alpha\n\n## Tasks\n\n- [ ] plan\n\n## Todo\n\nlater\n\n## Status\n\nGoing.\n",
  "Inbox/Idea.md": "# Idea\n",
  "Categories/Books.md": "# Books\n",
  "References/Out of Control.md": "---\ncategories: ['[[Books]]']\nauthor: '[[Kevin Kelly]]'\ngenre: '[[Systems]]'\nrating: 5\n---\n# Out of Control\n",
  "Bases/Books.base": 'filters:\n  and:\n    - file.inFolder("References")\nviews:\n  - type: table\n    name: Top rated\n    order: [file.name, rating]\n',
  "Architecture.md": "# Architecture\n\n## Layers\n\n### Storage\n\ntext\n",
  "Spec.md": "# Spec\n",
  "API.md": "# API\n",
};
/** Documents the examples read (indx attachment text), copied from fixtures/documents. */
const EXTRA_DOCUMENTS: Record<string, string> = {
  "Papers/Attention.pdf": "pdfjs/knockout_groups_test.pdf",
  "Specs/Contract.docx": "python-docx/par-known-styles.docx",
};
const WORK_FILES: Record<string, string> = {
  "alpha.md": "# Alpha\n\nNew body.\n",
  "edits.json": '[{"op":"append_body","markdown":"more"}]',
  "board.json": '{"nodes":[],"edges":[]}',
  "canvas-ops.json": '[{"op":"add_node","node":{"id":"n9","type":"text","text":"hi","x":0,"y":0,"width":100,"height":60}}]',
  "action-items.schema.json": '{"type":"object","properties":{"task":{"type":"string"}},"required":["task"]}',
  "schema.json": '{"type":"object","properties":{"decision":{"type":"string"}},"required":["decision"]}',
  "fields.json": '[{"key":"status","type":"string"}]',
};

let base: string;

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/indx is missing: run `bun run build` first");
  base = realpathSync(mkdtempSync(join(tmpdir(), "indx-examples-")));
  mkdirSync(join(base, "bin"));
  symlinkSync(BIN, join(base, "bin", "indx"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

let runs = 0;

/** A fresh home with ~/Notes (the vault), a working folder with the files examples read, and the index built. */
function world() {
  const home = join(base, `home-${runs++}`);
  const vault = join(home, "Notes");
  cpSync(DEMO_VAULT, vault, { recursive: true });
  for (const [rel, text] of Object.entries(EXTRA_NOTES)) {
    mkdirSync(dirname(join(vault, rel)), { recursive: true });
    writeFileSync(join(vault, rel), text);
  }
  for (const [rel, fixture] of Object.entries(EXTRA_DOCUMENTS)) {
    mkdirSync(dirname(join(vault, rel)), { recursive: true });
    cpSync(join(import.meta.dir, "..", "..", "fixtures", "documents", fixture), join(vault, rel));
  }
  const work = join(home, "work");
  mkdirSync(work);
  for (const [rel, text] of Object.entries(WORK_FILES)) writeFileSync(join(work, rel), text);
  writeFileSync(join(work, "scan.pdf"), "%PDF-1.4\n%%EOF\n");
  // Weekly notes as the Periodic Notes plugin enables them (`indx daily --period weekly`).
  mkdirSync(join(vault, ".obsidian", "plugins", "periodic-notes"), { recursive: true });
  writeFileSync(
    join(vault, ".obsidian", "plugins", "periodic-notes", "data.json"),
    JSON.stringify({ weekly: { enabled: true, folder: "Weekly", format: "gggg-[W]ww" } }),
  );
  mkdirSync(join(home, "Desktop"));
  cpSync(join(DEMO_VAULT, "Attachments", "diagram.png"), join(home, "Desktop", "diagram.png"));
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    INDX_VAULT: vault,
    INDX_LOG: "off",
    PATH: `${join(base, "bin")}:${process.env.PATH ?? ""}`,
  };
  return { home, vault, work, env };
}

function bash(line: string, w: ReturnType<typeof world>) {
  // The first session of the README starts in the home folder (`indx init --vault Notes`).
  const cwd = line.includes("--vault Notes") ? w.home : w.work;
  const p = Bun.spawnSync(["bash", "-c", line], { cwd, env: w.env, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** Fills the placeholders a reader fills by hand: `<etag>` and `<plan_etag>` from the command that prints them. */
function filled(line: string, w: ReturnType<typeof world>): string {
  let out = line;
  if (out.includes("<etag>")) {
    const path = /note (?:update|patch) (\S+)/.exec(out)?.[1] ?? "Projects/Alpha.md";
    out = out.replaceAll("<etag>", JSON.parse(bash(`indx note get ${path} --json etag`, w).stdout).etag);
  }
  // The README sets ETAG on the line before (with jq); each line here runs on its own.
  if (out.includes("$ETAG") && !out.startsWith("ETAG=")) out = `ETAG=$(indx note get Projects/Alpha.md --json etag | jq -r .etag); ${out}`;
  if (out.includes("<plan_etag>")) {
    const plan = out.replace(/ --plan-etag <plan_etag>.*/, " --json plan_etag");
    out = out.replaceAll("<plan_etag>", JSON.parse(bash(plan, w).stdout).plan_etag);
  }
  return out;
}

/** Lines an example needs run before it in the same world (the state its words assume). */
function before(line: string): string[] {
  if (line.includes("--if-not-exists")) return ["rm Inbox/Idea.md"];
  if (line.startsWith("indx token revoke agent")) return ["indx token create --name agent"];
  // Examples naming the vaults `work` and `personal` assume `[vaults.<name>]` tables for them (docs/vaults.md).
  if (/--vaults? (work|personal)\b/.test(line))
    return [
      `mkdir -p "$HOME/vault-work" "$HOME/vault-personal" "$XDG_CONFIG_HOME/indx" && printf '\\n[vaults.work]\\npath = "%s/vault-work"\\n\\n[vaults.personal]\\npath = "%s/vault-personal"\\n' "$HOME" "$HOME" >> "$XDG_CONFIG_HOME/indx/config.toml"`,
    ];
  return [];
}

async function helpExamples(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (cmd: CommandDef) => {
    out.push(...(HELP_TEXT.get(cmd)?.examples ?? []));
    for (const sub of Object.values((await subCommandsOf(cmd)) ?? {})) await walk(sub);
  };
  await walk(root);
  return out;
}

/** The README's shell lines that run `indx` (```sh and ```console blocks; `$ ` prompts stripped; continued lines joined). */
function readmeExamples(): string[] {
  const text = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const out: string[] = [];
  for (const block of text.matchAll(/```(sh|console)\n([\s\S]*?)```/g)) {
    const lines: string[] = [];
    // A line continued by a backslash, or inside an open single quote, runs as one command.
    for (const raw of block[2]!.split("\n")) {
      const prev = lines[lines.length - 1];
      if (prev !== undefined && (prev.endsWith("\\") || (prev.split("'").length - 1) % 2 === 1))
        lines[lines.length - 1] = prev.endsWith("\\") ? `${prev.slice(0, -1)} ${raw.trim()}` : `${prev}\n${raw}`;
      else lines.push(raw);
    }
    for (const raw of lines) {
      const line = block[1] === "console" ? (raw.startsWith("$ ") ? raw.slice(2) : "") : raw;
      if (/^(\S+=\S+ )*indx\b|\| indx\b|\$\(indx/.test(line.trim()) && !line.trim().startsWith("#")) out.push(line.trim());
    }
  }
  return out;
}

describe("examples", () => {
  test("every --help example and every README example runs and exits with its documented code", async () => {
    const help = await helpExamples();
    const readme = readmeExamples();
    const lines = [...new Set([...help, ...readme])];
    const failures: string[] = [];
    let ran = 0;
    for (const line of lines) {
      if (SKIP[line]) continue;
      const w = world();
      const work = (l: string) => bash(l.replace(/^rm /, `rm ${w.vault}/`), w);
      expect(bash("indx vault index", w).code).toBe(0);
      for (const pre of before(line)) work(pre);
      const r = bash(filled(line, w), w);
      ran++;
      if (r.code !== expectedCode(line)) failures.push(`${line}\n  → exit ${r.code}: ${(r.stderr || r.stdout).trim().slice(0, 300)}`);
      rmSync(w.home, { recursive: true, force: true });
    }
    console.log(`examples: ${help.length} in --help, ${readme.length} in the README, ${lines.length} distinct, ${ran} run, ${lines.length - ran} skipped`);
    expect(failures).toEqual([]);
  }, 900_000);
});
