import { IndxError } from "../core/errors.ts";
import { AiDb } from "../index/storage/ai-db.ts";
import type { IndexStore } from "../index/storage/store.ts";
import type { AiRole } from "../ops/define.ts";
import { AiGlobs } from "../providers/globs.ts";
import type { MeterSource } from "../providers/meter.ts";
import { createChatProvider } from "../providers/providers.ts";
import { type AiSettings, aiSettings, type Endpoint, onThisMachine } from "../providers/settings.ts";
import { SpendLedger } from "../providers/spend.ts";
import type { ChatProvider } from "../providers/types.ts";
import { DenyWall } from "../providers/wall.ts";
import type { Vault } from "../vault/vault.ts";
import { AiCache } from "./cache.ts";

const MAX_RETRIEVALS = 256;

/**
 * The AI runtime of one vault, owned by its context (`ctx.ai`, closed by `ctx.close()`): the
 * settings, the chat provider, the cache and the spend ledger. Nothing opens or connects until an
 * AI operation needs it, so a vault without AI pays nothing for it.
 */
export class AiService {
  private settingsValue: AiSettings | null = null;
  private chatProvider: ChatProvider | null = null;
  private records: AiDb | null = null;
  private cacheStore: AiCache | null = null;
  private ledger: SpendLedger | null = null;
  /** Retrievals of this process, valid until the index or the vectors change (docs/decisions.md, "AI cache hits"). */
  private readonly retrievals = new Map<string, unknown>();
  /** The deny wall of the index as it is, built on the first request after each change. */
  private wallValue: DenyWall | null = null;

  constructor(
    private readonly vault: Vault,
    private readonly index: () => IndexStore,
  ) {}

  /** The settings (fixed for the life of the process). Throws validation_failed on a half configuration. */
  settings(): AiSettings {
    return (this.settingsValue ??= aiSettings(this.vault.config));
  }

  /** Whether an operation needing this role can run here: it decides what tools/list and OpenAPI show. */
  offers(role: AiRole): boolean {
    let s: AiSettings;
    try {
      s = this.settings();
    } catch {
      return false;
    }
    if (!s.enabled) return false;
    if (role === "chat") return s.chat !== null;
    if (role === "embeddings") return s.embeddings !== null;
    return s.chat !== null || s.embeddings !== null;
  }

  /**
   * Whether an operation needing this role may send note text off this machine: a configured
   * provider of the role that is not on a loopback address (MCP openWorldHint).
   */
  sendsElsewhere(role: AiRole): boolean {
    if (!this.offers(role)) return false;
    const s = this.settings();
    const remote = (e: Endpoint | null) => e !== null && !onThisMachine(e);
    if (role === "chat") return remote(s.chat);
    if (role === "embeddings") return remote(s.embeddings);
    return remote(s.chat) || remote(s.embeddings);
  }

  /** The chat model, or ai_unavailable naming the role and the fix, before anything is sent anywhere. */
  chat(): ChatProvider {
    const s = this.settings();
    if (!s.enabled)
      throw new IndxError("ai_unavailable", "The AI runtime is turned off (ai.enabled = false).", { required_role: "chat", fix: "set ai.enabled = true" });
    if (!s.chat)
      throw new IndxError("ai_unavailable", "No chat model is configured: set INDX_AI_PROVIDER and INDX_AI_MODEL.", {
        required_role: "chat",
        fix: "set INDX_AI_PROVIDER and INDX_AI_MODEL",
      });
    return (this.chatProvider ??= createChatProvider(s.chat, () => this.wall(), this.meter(), this.vault.dataDir));
  }

  globs(): AiGlobs {
    const s = this.settings();
    return new AiGlobs(s.allowGlobs, s.denyGlobs);
  }

  /** The ledger and cap every model request of this vault is held against (src/providers/meter.ts). */
  meter(): MeterSource {
    return { ledger: () => this.spend, cap: this.settings().dailyCostUsd };
  }

  /** The deny wall every request of this vault's chat model passes (src/providers/wall.ts). */
  wall(): DenyWall {
    return (this.wallValue ??= DenyWall.of(this.index(), this.globs()));
  }

  private get store(): AiDb {
    return (this.records ??= new AiDb(this.vault.ensureDataDir()));
  }

  get cache(): AiCache {
    return (this.cacheStore ??= new AiCache(this.store));
  }

  get spend(): SpendLedger {
    return (this.ledger ??= new SpendLedger(this.store));
  }

  /** An edit invalidates only the cached results that read the edited notes, and every remembered retrieval. */
  notesChanged(paths: readonly string[]): void {
    if (paths.length === 0) return;
    this.wallValue = null;
    this.retrievals.clear();
    this.cacheStore?.invalidatePaths(paths);
  }

  vectorsChanged(): void {
    this.retrievals.clear();
  }

  /**
   * A retrieval, run once per key while the index and the vectors stay as they are: the same
   * question over the same notes finds the same passages, so a cache hit need not search again.
   */
  async retrieval<T>(key: string, run: () => Promise<T>): Promise<T> {
    const known = this.retrievals.get(key);
    if (known !== undefined) return known as T;
    const found = await run();
    const oldest = this.retrievals.keys().next();
    if (this.retrievals.size >= MAX_RETRIEVALS && !oldest.done) this.retrievals.delete(oldest.value);
    this.retrievals.set(key, found);
    return found;
  }

  close(): void {
    this.records?.close();
    this.records = null;
    this.cacheStore = null;
    this.ledger = null;
  }
}
