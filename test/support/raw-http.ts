import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** Milliseconds from sending the request to the end of the response. */
  ms: number;
}

/**
 * Sends exact bytes over a fresh TCP connection and reads one response. A client library would
 * normalise what these tests need to send broken (duplicate Host, short bodies, bad names).
 * `Connection: close` in the request makes the server end the connection after its answer.
 */
export function rawRequest(port: number, bytes: string | Uint8Array, timeoutMs = 15_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const parsed = parseResponse(text);
      if (!parsed) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parsed, ms: performance.now() - started });
      return true;
    };
    socket.on("data", (b) => {
      chunks.push(Buffer.from(b));
      finish();
    });
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on("close", () => {
      if (!finish()) {
        clearTimeout(timer);
        reject(new Error(`connection closed without a complete response: ${Buffer.concat(chunks).toString("utf8").slice(0, 200)}`));
      }
    });
  });
}

/** Parses a complete HTTP/1.1 response with a Content-Length (or none and no body); null while incomplete. */
function parseResponse(text: string): Omit<RawResponse, "ms"> | null {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = text.slice(end + 4);
  const length = Number(headers.get("content-length") ?? "0");
  if (Buffer.byteLength(body) < length) return null;
  return { status: Number(statusLine?.split(" ")[1]), headers, body };
}
