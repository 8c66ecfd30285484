import type { App } from "../app/context.ts";
import { eventForGrant } from "../events/grant-filter.ts";
import { parseKinds } from "../events/types.ts";
import type { Grant } from "../ops/grant.ts";

const HEARTBEAT_MS = 15_000;

/**
 * GET /v1/events: the vault's events as Server-Sent Events, optionally filtered by
 * `kinds=note.updated,note.moved` (a kind prefix such as `note` selects all note events).
 */
export function eventStream(ctx: App, request: Request, grant: Grant | null = null): Response {
  const filter = parseKinds(new URL(request.url).searchParams.getAll("kinds"));
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      send(": indx events\nretry: 2000\n\n");
      const unsubscribe = ctx.events.subscribe((raw) => {
        // What the token's folder grant hides never reaches its stream (docs/permissions.md).
        const event = eventForGrant(raw, grant);
        if (!event || (filter && !filter.has(event.kind))) return;
        send(`id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`);
      });
      const heartbeat = setInterval(() => send(": keep-alive\n\n"), HEARTBEAT_MS);
      cleanup = () => {
        clearInterval(heartbeat);
        unsubscribe();
      };
      request.signal.addEventListener("abort", () => {
        cleanup();
        try {
          controller.close();
        } catch {}
      });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
}
