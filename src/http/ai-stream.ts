import type { AiStreamEvent, AiStreamSink } from "../ai/stream.ts";
import { toIndxError } from "../core/errors.ts";

/** A request for an AI operation's event stream: `Accept: text/event-stream`, or `stream: true` in the body. */
export function wantsAiStream(request: Request, input: Record<string, unknown>): boolean {
  return input.stream === true || (request.headers.get("accept") ?? "").includes("text/event-stream");
}

/**
 * An AI operation as server-sent events (docs/contracts.md, AI runtime: streaming): ai.partial,
 * ai.citation and ai.usage while it runs, then ai.complete with the whole result — the same data
 * a plain request gets. A failure before the first event is an ordinary error response (the status
 * still means something then); a failure later is an `ai.error` event carrying the error envelope.
 */
export async function aiEventStream(run: (sink: AiStreamSink) => Promise<unknown>): Promise<Response> {
  const encoder = new TextEncoder();
  const pending: string[] = [];
  let push: ((frame: string) => void) | null = null;
  let end: (() => void) | null = null;
  const first = Promise.withResolvers<void>();
  const frame = (event: AiStreamEvent | { type: "ai.error"; error: unknown }) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  const send = (text: string) => (push ? push(text) : pending.push(text));

  const done = run((event) => {
    send(frame(event));
    first.resolve();
  }).then(
    (data) => send(frame({ type: "ai.complete", data })),
    (err) => {
      if (pending.length === 0 && push === null) throw err;
      send(frame({ type: "ai.error", error: toIndxError(err).toJSON() }));
    },
  );
  // Until something has been said, a failure can still be a status code.
  await Promise.race([first.promise, done]);

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (text) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {}
      };
      end = () => {
        try {
          controller.close();
        } catch {}
      };
      for (const text of pending.splice(0)) push(text);
      done.finally(() => end?.());
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
}
