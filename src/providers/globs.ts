import type { Config } from "../config/load.ts";
import { globToRegExp } from "../vault/glob.ts";

/** ai.allow_globs and ai.deny_globs: a note is eligible when some allow glob (or none is set) and no deny glob matches. */
export class AiGlobs {
  private readonly allow: RegExp[];
  private readonly deny: RegExp[];

  /** The globs of a vault's configuration (the same keys ai/settings reads). */
  static of(config: Config): AiGlobs {
    return new AiGlobs(config.list("ai.allow_globs"), config.list("ai.deny_globs"));
  }

  constructor(allow: readonly string[], deny: readonly string[]) {
    this.allow = allow.map((g) => globToRegExp(g));
    this.deny = deny.map((g) => globToRegExp(g));
  }

  /** Whether any glob is set: without one every note is allowed and the deny wall has nothing to keep. */
  get restricts(): boolean {
    return this.deny.length > 0 || this.allow.length > 0;
  }

  allows(path: string): boolean {
    if (this.deny.some((re) => re.test(path))) return false;
    return this.allow.length === 0 || this.allow.some((re) => re.test(path));
  }
}
