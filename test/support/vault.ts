import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { App } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/load.ts";
import { Vault } from "../../src/vault/vault.ts";

// Tests check outputs, not the server's stderr log lines.
process.env.INDX_LOG = "off";

export const DEMO_VAULT = join(import.meta.dir, "..", "..", "fixtures", "demo-vault");

/** A scratch area: a vault folder, a data dir and a config home, all under one temp dir. */
export interface Sandbox {
  dir: string;
  vault: string;
  dataDir: string;
  /** Environment for a child process or loadConfig: isolates config and data from the user's. */
  env: Record<string, string>;
  write(rel: string, content: string | Uint8Array): void;
  context(flags?: Record<string, unknown>): App;
  cleanup(): void;
}

export function sandbox(files: Record<string, string | Uint8Array> = {}, opts: { fromDemo?: boolean } = {}): Sandbox {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "indx-test-")));
  const vault = join(dir, "vault");
  const dataDir = join(dir, "data");
  if (opts.fromDemo) cpSync(DEMO_VAULT, vault, { recursive: true });
  else mkdirSync(vault, { recursive: true });
  const env: Record<string, string> = {
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, "config"),
    XDG_DATA_HOME: join(dir, "share"),
    INDX_VAULT: vault,
    INDX_DATA_DIR: dataDir,
    INDX_LOG: "off",
    PATH: process.env.PATH ?? "",
  };
  const sb: Sandbox = {
    dir,
    vault,
    dataDir,
    env,
    write(rel, content) {
      const abs = join(vault, rel);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    },
    context(flags = {}) {
      return new App(Vault.open(loadConfig({ flags, env })));
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  for (const [rel, content] of Object.entries(files)) sb.write(rel, content);
  return sb;
}
