import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app/context.ts";
import { activateContext } from "../../src/context/ops.ts";
import { linkBacklinks } from "../../src/links/ops.ts";
import { vaultStatus } from "../../src/maintenance/ops.ts";
import { documentRead } from "../../src/notes/document-ops.ts";
import { chunkGet } from "../../src/notes/retrieval-ops.ts";
import { invokeOp } from "../../src/ops/invoke.ts";
import { vaultSearch } from "../../src/search/ops.ts";
import { compileGrant } from "../../src/vault/grant.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/**
 * A folder grant hides a document's text as it hides a note (docs/permissions.md, docs/documents.md):
 * PDF pages are rows of the same tables, so the grant's view must leave out those of a hidden PDF.
 */
const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "documents", "pdfjs");

let sb: Sandbox;
let app: App;

beforeAll(async () => {
  sb = sandbox({
    "Projects/Plan.md": "# Plan\n\nSee [[knockout_groups_test.pdf#page=3]] and [[rotation.pdf]].\n",
  });
  cpSync(join(FIXTURES, "knockout_groups_test.pdf"), join(sb.vault, "Personal", "knockout_groups_test.pdf"));
  cpSync(join(FIXTURES, "rotation.pdf"), join(sb.vault, "Projects", "rotation.pdf"));
  app = sb.context();
  await app.updateIndex({ build: true });
});

afterAll(() => {
  app.close();
  sb.cleanup();
});

const granted = () => app.forCall({ grant: compileGrant({ read: ["Projects/**"] }) });
const run = <I, O>(op: Parameters<typeof invokeOp>[0], input: I) =>
  invokeOp(op, granted(), input).then(
    (r) => ({ ok: true as const, value: r.result as O }),
    (err: { code?: string; message?: string }) => ({ ok: false as const, code: err.code, message: String(err.message) }),
  );

describe("a folder grant and document text", () => {
  test("the whole vault finds the hidden PDF's page; the grant finds nothing of it", async () => {
    const whole = await invokeOp(vaultSearch, app, { q: '"Non-isolated Inner Sub-group"' });
    expect(JSON.stringify(whole.result)).toContain("Personal/knockout_groups_test.pdf");
    const seen = await run(vaultSearch, { q: '"Non-isolated Inner Sub-group"' });
    expect(seen.ok && JSON.stringify(seen.value)).not.toContain("knockout");
    const visible = await run(vaultSearch, { q: "landscape layout" });
    expect(JSON.stringify(visible)).toContain("Projects/rotation.pdf");
  });

  test("reading the hidden PDF is not_found, in the words a missing file gets", async () => {
    const hidden = await run(documentRead, { path: "Personal/knockout_groups_test.pdf" });
    const missing = await run(documentRead, { path: "Personal/nothing-here.pdf" });
    expect(hidden.ok).toBe(false);
    expect(!hidden.ok && hidden.code).toBe("not_found");
    expect(!hidden.ok && !missing.ok && hidden.message.replace("knockout_groups_test", "X")).toBe(
      !missing.ok ? missing.message.replace("nothing-here", "X") : "",
    );
    const chunk = await run(chunkGet, { id: "Personal/knockout_groups_test.pdf#2" });
    expect(!chunk.ok && chunk.code).toBe("not_found");
  });

  test("context, backlinks and status leave the hidden PDF out", async () => {
    // The whole vault's context opens the hidden PDF at the linked page: the grant's must not.
    const whole = await invokeOp(activateContext, app, { path: "Projects/Plan.md", hops: 1 });
    expect(JSON.stringify(whole.result)).toContain("Personal/knockout_groups_test.pdf");
    for (const [op, input] of [
      [activateContext, { path: "Projects/Plan.md", hops: 1 }],
      [linkBacklinks, { path: "Projects/Plan.md" }],
      [vaultStatus, {}],
    ] as const) {
      const out = await run(op, input);
      expect(out.ok).toBe(true);
      expect(JSON.stringify(out)).not.toContain("Personal/");
      expect(JSON.stringify(out)).not.toContain("Inner Sub-group");
    }
  });
});
