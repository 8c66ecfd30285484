import { resolve } from "node:path";

/**
 * The binary the end-to-end tests run: dist/indx from `bun run build`, or another build named by
 * INDX_E2E_BIN (the release smoke runs the suite on the binary from a release archive).
 */
export const BIN = process.env.INDX_E2E_BIN ? resolve(process.env.INDX_E2E_BIN) : resolve(import.meta.dir, "..", "..", "dist", "indx");
