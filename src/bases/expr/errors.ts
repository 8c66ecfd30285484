/** A syntax or compile error in one expression; `at` is the offset in the expression text. */
export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly at: number,
    /** True when the expression exceeds a bound (length, nesting): a 400, not a broken file. */
    readonly bound = false,
  ) {
    super(message);
    this.name = "ExpressionError";
  }
}
