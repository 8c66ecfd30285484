/**
 * What one query's expressions may cost (docs/decisions.md, "The cost of a base"). Every method
 * and function call pays for the text and list items it reads and makes, so an expression whose
 * work grows with its input — `split("")` of a long text, a regex over every name, a map inside a
 * map — stops with `query_too_costly` instead of holding a reader for tens of seconds. Regexes run
 * on RE2 (src/bases/regex.ts), so what they are charged is what they take.
 */
import { IndxError } from "../core/errors.ts";
import { ErrorValue, error, isList, type Value } from "./values.ts";

/** Units of one query: a character read or made is 1, a list item 8 (it is allocated). About a second of work. */
export const QUERY_BUDGET = 50_000_000;
const LIST_ITEM_UNITS = 8;
/** The longest text and list an expression may make: past them the value is an error (and it is never made larger). */
export const MAX_TEXT_CHARS = 1_000_000;
export const MAX_LIST_ITEMS = 100_000;

export class EvalBudget {
  private spent = 0;

  constructor(private readonly limit = QUERY_BUDGET) {}

  /** Pays `units`; past the limit the whole query stops with query_too_costly. */
  spend(units: number): void {
    this.spent += units;
    if (this.spent > this.limit)
      throw new IndxError(
        "query_too_costly",
        `The expressions of this query need more work than one query may take (${this.limit.toLocaleString("en")} units: each character read or made is one): simplify them or narrow the filters.`,
        { reason: "cost_limit", limit: this.limit },
      );
  }

  /** The size of a value in units: its characters, or its items. */
  static sizeOf(v: Value | undefined): number {
    if (typeof v === "string") return v.length;
    if (v !== undefined && isList(v)) return v.length * LIST_ITEM_UNITS;
    return 1;
  }

  /**
   * Pays for a value made (a call's result, a concatenation) and caps it: a text or list past its
   * limit becomes an error in its cell.
   */
  made(v: Value): Value {
    if (v instanceof ErrorValue) return v;
    this.spend(EvalBudget.sizeOf(v));
    if (typeof v === "string" && v.length > MAX_TEXT_CHARS) return error(`The text would be longer than ${MAX_TEXT_CHARS.toLocaleString("en")} characters`);
    if (isList(v) && v.length > MAX_LIST_ITEMS) return error(`The list would have more than ${MAX_LIST_ITEMS.toLocaleString("en")} items`);
    return v;
  }
}
