import { afterEach, describe, expect, test } from "bun:test";
import { vaultSearch } from "../../src/search/ops.ts";
import { invoke } from "../support/ops.ts";
import { type Sandbox, sandbox } from "../support/vault.ts";

/** vault_search's where (a Bases expression), min_score and date queries (docs/search.md, "Filters and dates"). */

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

interface Out {
  results: { path: string; score: number }[];
  next_cursor: string | null;
}

const VAULT = {
  "Tasks/Invoice Acme.md": "---\ndue: 2024-05-10\nstatus: open\n---\nSend the invoice to Acme.\n",
  "Tasks/Invoice Beta.md": "---\ndue: 2024-06-02\nstatus: open\n---\nSend the invoice to Beta.\n",
  "Tasks/Invoice Done.md": "---\ndue: 2024-05-20\nstatus: done\n---\nThe invoice was paid.\n",
  "Notes/Invoices.md": "# Invoices\n\nHow we write an invoice, and what it must say. Written on 2024-05-10.\n",
  "Daily/2024-05-10.md": "Calls and mail.\n",
};

async function search(ctx: ReturnType<Sandbox["context"]>, input: Record<string, unknown>): Promise<Out> {
  return (await invoke(vaultSearch, ctx, { mode: "lexical", ...input })) as Out;
}

describe("vault_search filters", () => {
  test("where takes a Bases expression, as note_list does", async () => {
    sb = sandbox(VAULT);
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const paths = async (where: string) => (await search(ctx, { q: "invoice", where })).results.map((r) => r.path).sort();
    expect(await paths('status == "open"')).toEqual(["Tasks/Invoice Acme.md", "Tasks/Invoice Beta.md"]);
    expect(await paths('due < date("2024-06-01") && status != "done"')).toEqual(["Tasks/Invoice Acme.md"]);
    expect(await paths('file.inFolder("Notes")')).toEqual(["Notes/Invoices.md"]);
    // Combined with the other filters: all must hold.
    expect((await search(ctx, { q: "invoice", where: 'status == "open"', path_glob: "**/*Beta*" })).results.map((r) => r.path)).toEqual([
      "Tasks/Invoice Beta.md",
    ]);
    await expect(search(ctx, { q: "invoice", where: "status ==" })).rejects.toMatchObject({ code: "validation_failed" });
    ctx.close();
  });

  test("min_score keeps only hits scoring at least that, and ends the pages there", async () => {
    sb = sandbox(VAULT);
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const all = (await search(ctx, { q: "invoice acme" })).results;
    expect(all.length).toBeGreaterThan(2);
    const floor = (all[0]!.score + all[all.length - 1]!.score) / 2;
    const above = all.filter((r) => r.score >= floor).map((r) => r.path);
    expect(above.length).toBeGreaterThan(0);
    expect(above.length).toBeLessThan(all.length);
    const cut = await search(ctx, { q: "invoice acme", min_score: floor, limit: 10 });
    expect(cut.results.map((r) => r.path)).toEqual(above);
    expect(cut.next_cursor).toBeNull();
    // A page under the floor ends the pages: no cursor to a page that would be empty.
    const first = await search(ctx, { q: "invoice acme", min_score: floor, limit: above.length });
    expect(first.results.map((r) => r.path)).toEqual(above);
    const next = first.next_cursor === null ? null : await search(ctx, { q: "invoice acme", min_score: floor, limit: above.length, cursor: first.next_cursor });
    expect(next === null || (next.results.length === 0 && next.next_cursor === null)).toBe(true);
    await expect(search(ctx, { q: "x", min_score: 2 })).rejects.toMatchObject({ code: "validation_failed" });
    ctx.close();
  });

  test("a date finds notes whose date property is that day, month or range, and notes that write it", async () => {
    sb = sandbox(VAULT);
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const paths = async (q: string) => (await search(ctx, { q })).results.map((r) => r.path).sort();
    expect(await paths("2024-05-10")).toEqual(["Daily/2024-05-10.md", "Notes/Invoices.md", "Tasks/Invoice Acme.md"]);
    // The month: the notes due in it, and those whose text or name writes a day of it.
    expect(await paths("2024-05")).toEqual(["Daily/2024-05-10.md", "Notes/Invoices.md", "Tasks/Invoice Acme.md", "Tasks/Invoice Done.md"]);
    expect(await paths("2024-05-15..2024-06-30")).toEqual(["Tasks/Invoice Beta.md", "Tasks/Invoice Done.md"]);
    expect(await paths('invoice AND 2024-05 -"written on"')).toEqual(["Tasks/Invoice Acme.md", "Tasks/Invoice Done.md"]);
    // The note named by the date comes first.
    expect((await search(ctx, { q: "2024-05-10" })).results[0]!.path).toBe("Daily/2024-05-10.md");
    // Not a date: its numbers are words, as before, and no property is read.
    expect(await paths("2024-13-01")).toEqual(["Daily/2024-05-10.md", "Notes/Invoices.md"]);
    ctx.close();
  });
});

describe("vault_search filters over REST", () => {
  test("where and min_score come from the query string, typed", async () => {
    const { startServer } = await import("../../src/http/serve.ts");
    const { loadConfig } = await import("../../src/config/load.ts");
    sb = sandbox(VAULT);
    const ctx = sb.context();
    await ctx.updateIndex({ build: true });
    const server = await startServer(ctx, { host: "127.0.0.1", port: 0, notice: () => {} });
    try {
      const key = loadConfig({ env: sb.env }).str("server.api_key")!;
      const get = async (query: string) => {
        const res = await fetch(`${server.url}/v1/search?${query}`, { headers: { authorization: `Bearer ${key}` } });
        return { status: res.status, body: (await res.json()) as { ok: boolean; data: Out } };
      };
      const open = await get(`q=invoice&mode=lexical&where=${encodeURIComponent('status == "open"')}`);
      expect(open.status).toBe(200);
      expect(open.body.data.results.map((r) => r.path).sort()).toEqual(["Tasks/Invoice Acme.md", "Tasks/Invoice Beta.md"]);
      const floor = await get("q=invoice&mode=lexical&min_score=0.99");
      expect(floor).toMatchObject({ status: 200, body: { ok: true, data: { results: [], next_cursor: null } } });
      expect((await get("q=invoice&min_score=high")).status).toBe(400);
    } finally {
      await server.stop();
    }
  });
});
