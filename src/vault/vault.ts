import { accessSync, constants, existsSync, mkdirSync, realpathSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { Config, type ConfigSnapshot } from "../config/load.ts";
import { IndxError } from "../core/errors.ts";
import { etagOf } from "../core/hash.ts";
import { currentPlatform, dataHome, expandHome } from "../core/platform-dirs.ts";
import { ignoredBy, readObsidianApp } from "./obsidian-app.ts";
import { assertInsideVault, normalizeVaultPath } from "./paths.ts";
import { Exclusions, vaultMissingError } from "./scan.ts";

/** A Vault as plain data: where it was found and its configuration, for another thread. */
export interface VaultSnapshot {
  root: string;
  dataDir: string;
  config: ConfigSnapshot;
}

/**
 * Obsidian's "Excluded files" as an exclusion, when index.obsidian_excluded asks for it
 * (docs/permissions.md): read once per Vault, as index.exclude is.
 */
function obsidianExcluded(root: string, config: Config): ((path: string) => boolean) | null {
  if (config.get<boolean>("index.obsidian_excluded") !== true) return null;
  const filters = readObsidianApp(root).userIgnoreFilters;
  return filters.length ? ignoredBy(filters) : null;
}

/** One opened vault: where it lives, where its index and state live, what is excluded. */
export class Vault {
  readonly id: string;
  readonly exclusions: Exclusions;

  private constructor(
    /** Real absolute path of the vault root. Never leaves the process. */
    readonly root: string,
    readonly dataDir: string,
    readonly config: Config,
  ) {
    this.id = vaultId(root);
    this.exclusions = new Exclusions(config.list("index.exclude"), obsidianExcluded(root, config));
  }

  static open(config: Config, env: Record<string, string | undefined> = process.env): Vault {
    const configured = config.str("vault");
    if (!configured) throw new IndxError("validation_failed", "No vault given: pass --vault <folder>, set INDX_VAULT, or `indx config set vault <folder>`.");
    const abs = resolve(expandHome(configured, currentPlatform(env)));
    if (!existsSync(abs) || !statSync(abs).isDirectory())
      throw new IndxError("not_found", `The vault folder ${abs} does not exist or is not a folder.`, { vault: basename(abs) });
    const root = realpathSync(abs);
    const dataDir = config.str("data_dir") ?? defaultDataDir(root, env);
    return new Vault(root, resolve(dataDir), config);
  }

  /**
   * The same vault in another thread (the index worker). Root and data folder travel resolved, so
   * the environment and working directory Vault.open() read need not travel with them.
   */
  static fromSnapshot(s: VaultSnapshot): Vault {
    return new Vault(s.root, s.dataDir, Config.fromSnapshot(s.config));
  }

  snapshot(): VaultSnapshot {
    return { root: this.root, dataDir: this.dataDir, config: this.config.snapshot() };
  }

  /** Validates an untrusted path and returns it normalised; refuses symlink escapes. */
  safePath(input: unknown, what = "path"): string {
    const rel = normalizeVaultPath(input, what);
    if (this.exclusions.excludes(rel)) throw new IndxError("path_invalid", `${what} is excluded from the vault`, { reason: "excluded" });
    assertInsideVault(this.root, rel);
    return rel;
  }

  abs(rel: string): string {
    return join(this.root, rel);
  }

  /**
   * Throws vault_missing when the vault folder is gone (deleted, renamed, unmounted) while a
   * long-running process serves it: reads would answer from an index of nothing, and a write would
   * make the folder again (docs/decisions.md, "A vault folder that goes away").
   */
  assertPresent(): void {
    if (!statSync(this.root, { throwIfNoEntry: false })?.isDirectory()) throw vaultMissingError(this.root);
  }

  /** A failure of the data folder (full disk, read-only) as its typed error, or null (storageError). */
  storageError(err: unknown): IndxError | null {
    return storageError(err, this.dataDir);
  }

  /** The data folder, made when missing; a data folder that cannot be one is data_dir_unusable with the fix. */
  ensureDataDir(): string {
    try {
      mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw dataDirError(this.dataDir, err) ?? err;
    }
    return this.dataDir;
  }

  get indexPath(): string {
    return join(this.dataDir, "index.db");
  }
}

export function vaultId(root: string): string {
  const slug =
    basename(root)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 32) || "vault";
  return `${slug}-${etagOf(root).slice(0, 12)}`;
}

function defaultDataDir(root: string, env: Record<string, string | undefined>): string {
  return join(dataHome(currentPlatform(env)), "vaults", vaultId(root));
}

/** The fix for a data folder indx cannot use, in the words of every place that sets it. */
const DATA_DIR_FIX = "point data_dir (INDX_DATA_DIR, --data-dir, or `indx config set data_dir <folder>`) at a folder indx may write";

/**
 * A typed error for a data folder that is not usable (docs/contracts.md, data_dir_unusable): a
 * file stands where the folder should be, or the folder cannot be written. It names the folder by
 * its last part only: the message also reaches REST and MCP clients, which never see an absolute
 * path. Null when `err` is about something else (or absent: then only the "is a file" case).
 */
export function dataDirError(dir: string, err?: unknown): IndxError | null {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const st = statSync(dir, { throwIfNoEntry: false });
  const name = basename(dir);
  if ((st && !st.isDirectory()) || code === "ENOTDIR")
    return new IndxError("data_dir_unusable", `The data folder (data_dir, …/${name}) is a file, not a folder: move the file away, or ${DATA_DIR_FIX}.`, {
      reason: "not_a_folder",
      folder: name,
      fix: DATA_DIR_FIX,
    });
  if (code === "EACCES" || code === "EPERM" || code === "EROFS")
    return new IndxError("data_dir_unusable", `The data folder (data_dir, …/${name}) cannot be written: give it write permission, or ${DATA_DIR_FIX}.`, {
      reason: code === "EROFS" ? "read_only_file_system" : "not_writable",
      folder: name,
      fix: DATA_DIR_FIX,
    });
  return null;
}

/**
 * The error a failure in the data folder means, or null when it means nothing of the kind
 * (docs/decisions.md, "A full or read-only data folder"): a full disk is disk_full, a folder that
 * cannot be written is data_dir_unusable, each naming the folder by its last part. SQLite says
 * "disk I/O error" when it cannot grow its shared-memory file on a full disk, so that too is
 * disk_full when the disk has no space left.
 */
export function storageError(err: unknown, dataDir: string): IndxError | null {
  if (err instanceof IndxError || !(err instanceof Error)) return null;
  const name = basename(dataDir);
  const full = () =>
    new IndxError("disk_full", `The disk that holds the data folder (…/${name}) is full: free some space and retry.`, { folder: name, reason: "disk_full" });
  if (err.name === "SQLiteError") {
    const code = String((err as { code?: unknown }).code ?? "");
    if (code === "SQLITE_FULL") return full();
    if (code.startsWith("SQLITE_IOERR") && noSpaceLeft(dataDir)) return full();
    if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_CANTOPEN")) return writable(dataDir) ? null : dataDirError(dataDir, { code: "EACCES" });
    return null;
  }
  const e = err as NodeJS.ErrnoException;
  if (e.code === "ENOSPC" || e.code === "EDQUOT") return full();
  if (["EACCES", "EPERM", "EROFS", "ENOTDIR"].includes(e.code ?? "") && typeof e.path === "string" && isInside(dataDir, e.path))
    return dataDirError(dataDir, e);
  return null;
}

function noSpaceLeft(dir: string): boolean {
  try {
    return statfsSync(dir).bavail === 0;
  } catch {
    return false;
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return false;
  }
  // Root passes access() on a read-only mount: the mount says.
  try {
    const probe = join(dir, `.indx-write-probe-${process.pid}`);
    writeFileSync(probe, "");
    rmSync(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}

const isInside = (dir: string, path: string) => path === dir || path.startsWith(`${dir}/`) || path.startsWith(`${dir}\\`);
