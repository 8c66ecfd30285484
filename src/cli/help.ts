/** The full operation description, shown under the usage of that command's own --help (keyed by the command). */
export const LONG_HELP = new WeakMap<object, string>();
