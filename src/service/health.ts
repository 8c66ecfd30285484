/**
 * `indx health`: is the `indx serve` of this configuration answering? What a container's
 * HEALTHCHECK and a service check run (docs/decisions.md, "A container image").
 */
export interface HealthReport {
  url: string;
  ok: boolean;
  status?: number;
  version?: string;
  error?: string;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Where this machine reaches its own server: a wildcard bind is asked on loopback. */
export function localServeUrl(host: string, port: number, tls: boolean): string {
  const reach = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  return `${tls ? "https" : "http"}://${reach}:${port}/health`;
}

/**
 * GET /health, no credentials sent. On loopback the certificate is not verified: it is issued for
 * the public name, and the probe carries nothing secret.
 */
export async function probeHealth(url: string, timeoutMs: number): Promise<HealthReport> {
  const loopback = LOOPBACK.has(new URL(url).hostname) || new URL(url).hostname.startsWith("127.");
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual", ...(loopback ? { tls: { rejectUnauthorized: false } } : {}) });
    const body = (await res.json().catch(() => null)) as { ok?: boolean; data?: { status?: string; version?: string } } | null;
    const up = res.status === 200 && body?.data?.status === "ok";
    return {
      url,
      ok: up,
      status: res.status,
      ...(body?.data?.version ? { version: body.data.version } : {}),
      ...(up ? {} : { error: `answered ${res.status}` }),
    };
  } catch (err) {
    const name = (err as Error).name;
    return { url, ok: false, error: name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : "nothing answers there" };
  }
}
