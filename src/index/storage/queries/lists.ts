/** SQLite binds no arrays: a list travels as one JSON parameter and is read with json_each. */
export function jsonList(values: Iterable<number | string>): string {
  return JSON.stringify(Array.isArray(values) ? values : [...values]);
}

/** Which files a query may return: only `allowed` (null: every file), never `excluded`. */
export interface FileScope {
  allowed: ReadonlySet<number> | null;
  excluded?: readonly number[];
}
