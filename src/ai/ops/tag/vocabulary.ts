import { IndxError } from "../../../core/errors.ts";
import type { OpContext } from "../../../ops/context.ts";
import type { Warning } from "../../../ops/schemas.ts";
import { isValidTag } from "../../../tags/valid.ts";

/** Existing tags the prompt lists, most used first: enough to steer the model, bounded in tokens. */
const PROMPT_VOCABULARY = 150;

export interface VocabularyInput {
  use_existing?: boolean;
  allow_new?: boolean;
  candidates?: string[];
  forbid?: string[];
  namespace?: string;
}

/** A tag as a person or a model may write it: without '#', trimmed. */
const bare = (tag: string) => tag.trim().replace(/^#+/, "");

/**
 * The vault's tags and the caller's constraints (docs/decisions.md, "ai_tag"): normalises what the
 * model proposes to the vault's own spelling, and says why a proposal is not acceptable.
 */
export class TagVocabulary {
  /** Lowercased tag → the vault's canonical (most used) spelling, with its note count. */
  private readonly existing = new Map<string, { tag: string; count: number }>();
  readonly candidates: string[] | null;
  private readonly forbidden: Set<string>;
  readonly namespace: string | null;

  constructor(
    ctx: OpContext,
    readonly input: VocabularyInput,
  ) {
    for (const row of ctx.index.tags.counts([...ctx.ai.wall().deniedIds])) this.existing.set(row.tagLower, { tag: row.tag, count: row.count });
    this.namespace = input.namespace === undefined ? null : checked(input.namespace, "vocabulary.namespace");
    this.forbidden = new Set((input.forbid ?? []).map((t) => checked(t, "vocabulary.forbid").toLowerCase()));
    this.candidates = input.candidates ? [...new Set(input.candidates.map((t) => this.canonical(checked(t, "vocabulary.candidates"))))] : null;
  }

  /** The existing tags the prompt offers, most used first, within the namespace. */
  promptTags(): { tag: string; count: number }[] {
    if (this.input.use_existing === false) return [];
    return [...this.existing.values()]
      .filter((t) => this.inNamespace(t.tag))
      .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1))
      .slice(0, PROMPT_VOCABULARY);
  }

  isNew(tag: string): boolean {
    return !this.existing.has(tag.toLowerCase());
  }

  /** The vault's spelling of a tag it has; otherwise lowercase. */
  canonical(tag: string): string {
    return this.existing.get(tag.toLowerCase())?.tag ?? tag.toLowerCase();
  }

  /** A proposed tag in the vault's spelling, or the reason it is dropped (a tag_invalid warning). */
  accept(proposed: string): { tag: string } | { reason: string } {
    const tag = bare(proposed);
    if (!isValidTag(tag)) return { reason: `"${proposed.slice(0, 100)}" is not a valid tag (letters, numbers, _, - and / only, not all digits)` };
    const canonical = this.canonical(tag);
    if (this.candidates && !this.candidates.some((c) => c.toLowerCase() === canonical.toLowerCase()))
      return { reason: `"${canonical}" is not one of vocabulary.candidates` };
    if (this.isForbidden(canonical)) return { reason: `"${canonical}" is in vocabulary.forbid` };
    if (!this.inNamespace(canonical)) return { reason: `"${canonical}" is outside the namespace ${this.namespace}` };
    if (this.input.allow_new === false && this.isNew(canonical)) return { reason: `"${canonical}" is new and vocabulary.allow_new is false` };
    return { tag: canonical };
  }

  private isForbidden(tag: string): boolean {
    const lower = tag.toLowerCase();
    return [...this.forbidden].some((f) => lower === f || lower.startsWith(`${f}/`));
  }

  private inNamespace(tag: string): boolean {
    if (this.namespace === null) return true;
    const lower = tag.toLowerCase();
    const ns = this.namespace.toLowerCase();
    return lower === ns || lower.startsWith(`${ns}/`);
  }
}

/** A caller's tag, checked like any tag: validation_failed naming the field when it is not one. */
function checked(tag: string, field: string): string {
  const t = bare(tag);
  if (!isValidTag(t)) throw new IndxError("validation_failed", `${field}: "${tag.slice(0, 100)}" is not a valid tag.`, { field });
  return t;
}

export const tagInvalid = (path: string, reason: string): Warning => ({ code: "tag_invalid", path, message: `Dropped a proposed tag for ${path}: ${reason}.` });
