/**
 * Loaded before every test file (bunfig.toml). Every operation call made by a test — in this
 * process, in a reader worker, or in a CLI or server it spawns (they inherit the environment) —
 * fails with an internal error naming the code when the operation returns an error code its
 * `errors` list does not declare (src/ops/invoke.ts), so OpenAPI's per-route error lists, which
 * come from those declarations, stay true (docs/architecture.md).
 */
process.env.INDX_CHECK_ERRORS = "1";
