/**
 * Follows a JSON reply as the model writes it and hands over each element of some top-level array
 * fields (the segments of docs/decisions.md, "Claim-level grounding") as soon as the element is
 * complete, so it can be verified and streamed while the rest is still being written. One pass
 * over the reply, whatever the number of deltas: only the element being written is buffered.
 *
 * A gate field (ai_ask's `supported`) holds everything back until it is seen to be true, so a
 * reply that ends up "not supported" never streams a word.
 */
export interface FollowedElement {
  field: string;
  index: number;
  value: unknown;
}

export class SegmentFollower {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The last string completed at depth 1: a key once a colon follows. */
  private lastString = "";
  private stringBuf = "";
  private key: string | null = null;
  private element: string | null = null;
  private index = 0;
  private gateValue = "";
  private gateOpen: boolean;
  /** Elements completed while the gate was still closed. */
  private held: FollowedElement[] = [];

  constructor(
    private readonly fields: readonly string[],
    private readonly gate: string | null = null,
  ) {
    this.gateOpen = gate === null;
  }

  push(delta: string): FollowedElement[] {
    const out: FollowedElement[] = [];
    for (const c of delta) this.step(c, out);
    if (!this.gateOpen) {
      this.held.push(...out);
      return [];
    }
    if (this.held.length) {
      out.unshift(...this.held);
      this.held = [];
    }
    return out;
  }

  private step(c: string, out: FollowedElement[]): void {
    if (this.element !== null) this.element += c;
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === "\\") this.escaped = true;
      else if (c === '"') {
        this.inString = false;
        if (this.depth === 1) this.lastString = this.stringBuf;
      } else if (this.depth === 1) this.stringBuf += c;
      if (this.depth === 1 && this.stringBuf.length > 200) this.stringBuf = this.stringBuf.slice(0, 200);
      return;
    }
    switch (c) {
      case '"':
        this.inString = true;
        this.stringBuf = "";
        return;
      case ":":
        if (this.depth === 1) {
          this.key = this.lastString;
          this.gateValue = "";
        }
        return;
      case ",":
        if (this.depth === 1) this.closeGate();
        return;
      case "{":
      case "[":
        this.depth++;
        if (this.depth === 3 && this.element === null && this.watching()) this.element = c;
        if (this.depth === 2 && c === "[" && this.watching()) this.index = 0;
        return;
      case "}":
      case "]":
        if (this.depth === 1 && c === "}") this.closeGate();
        this.depth--;
        if (this.depth === 2 && this.element !== null && this.key !== null && this.watching()) {
          try {
            out.push({ field: this.key, index: this.index, value: JSON.parse(this.element) });
          } catch {}
          this.element = null;
          this.index++;
        }
        return;
      default:
        if (this.depth === 1 && this.key === this.gate && /[a-z]/.test(c)) this.gateValue += c;
    }
  }

  private watching(): boolean {
    return this.key !== null && this.fields.includes(this.key);
  }

  private closeGate(): void {
    if (this.gate !== null && this.key === this.gate && this.gateValue === "true") this.gateOpen = true;
  }
}
