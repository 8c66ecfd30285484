import { globToRegExp } from "../vault/glob.ts";

/** ai.allow_globs and ai.deny_globs: a note is eligible when some allow glob (or none is set) and no deny glob matches. */
export class AiGlobs {
  private readonly allow: RegExp[];
  private readonly deny: RegExp[];

  constructor(allow: readonly string[], deny: readonly string[]) {
    this.allow = allow.map((g) => globToRegExp(g));
    this.deny = deny.map((g) => globToRegExp(g));
  }

  allows(path: string): boolean {
    if (this.deny.some((re) => re.test(path))) return false;
    return this.allow.length === 0 || this.allow.some((re) => re.test(path));
  }
}
