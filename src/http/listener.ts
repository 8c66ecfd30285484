import type { Server } from "bun";
import { errnoOf } from "../core/errno.ts";
import { IndxError } from "../core/errors.ts";
import type { TlsPair } from "./tls.ts";

export interface ListenerOptions {
  host: string;
  port: number;
  tls: TlsPair | null;
  fetch: (request: Request) => Response | Promise<Response>;
  /** Whatever escapes `fetch` still gets an answer. */
  error: (err: unknown) => Response;
}

/** Seconds a connection may sit idle (what Elysia's own listen used). */
const IDLE_TIMEOUT_S = 30;

/**
 * The socket side of `indx serve`: one Bun server, the socket peer of every request (for the
 * proxy rules of src/http/proxy.ts), and a certificate swap. Bun's `server.reload` ignores `tls`,
 * so a renewed pair is put in service by closing the listening socket (open connections finish on
 * the old server) and binding a new one on the same port at once: a gap of a fraction of a
 * millisecond in which a new connection may be refused or reset (docs/decisions.md, "Public deployment").
 */
export class Listener {
  private server: Server<unknown>;
  private readonly peers = new WeakMap<Request, string>();
  private pair: TlsPair | null;
  readonly port: number;

  constructor(private readonly o: ListenerOptions) {
    this.pair = o.tls;
    this.server = this.bind(o.port, o.tls);
    this.port = this.server.port ?? o.port;
  }

  /** The address of the socket a request came in on ("unknown" if Bun cannot say). */
  peerOf(request: Request): string {
    return this.peers.get(request) ?? "unknown";
  }

  get tls(): TlsPair | null {
    return this.pair;
  }

  /** Serves `pair` from now on; on failure the old pair keeps serving and the error is thrown. */
  swapTls(pair: TlsPair): void {
    const old = this.server;
    void old.stop(false);
    try {
      this.server = this.bind(this.port, pair);
      this.pair = pair;
    } catch (err) {
      this.server = this.bind(this.port, this.pair);
      throw err;
    }
  }

  /** Stops listening and waits for requests in flight, as Elysia's stop did. */
  async stop(): Promise<void> {
    await this.server.stop();
  }

  /**
   * Binds without SO_REUSEPORT (Elysia's listen turns it on): a second server on a busy port
   * would otherwise start silently and take part of the traffic, which may then land in another vault.
   */
  private bind(port: number, tls: TlsPair | null): Server<unknown> {
    try {
      return Bun.serve({
        hostname: this.o.host,
        port,
        reusePort: false,
        idleTimeout: IDLE_TIMEOUT_S,
        development: false,
        ...(tls ? { tls: { cert: tls.cert, key: tls.key } } : {}),
        fetch: (request, server) => {
          const peer = server.requestIP(request)?.address;
          if (peer) this.peers.set(request, peer);
          return this.o.fetch(request);
        },
        error: this.o.error,
      });
    } catch (err) {
      if (errnoOf(err) !== "EADDRINUSE") throw err;
      throw new IndxError(
        "validation_failed",
        `Port ${port} on ${this.o.host} is already in use (another indx serve?). Pick another port with --port <n>, the config key server.port or INDX_PORT; --port 0 picks a free one.`,
        { port, reason: "port_in_use" },
      );
    }
  }
}
