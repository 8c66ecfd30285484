/** Prometheus text exposition of request counts and latencies, by route template (never by path). */
const BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000];

interface Series {
  count: number;
  sumMs: number;
  buckets: number[];
}

/** Gauges of one vault, by metric name. */
export type Gauges = Record<string, number>;

/**
 * One server's request metrics, shared by the default vault's routes and every named vault's
 * (docs/decisions.md, "Named vaults in /metrics and OpenAPI"): a named vault's series carry a
 * `vault` label, the default vault's carry none, as before several vaults.
 */
export class Metrics {
  private readonly requests = new Map<string, number>(); // `${vault}|${route}|${method}|${status}`
  private readonly latency = new Map<string, Series>(); // `${vault}|${route}`
  private readonly started = Date.now();

  observe(route: string, method: string, status: number, ms: number, vault = ""): void {
    const key = `${vault}|${route}|${method}|${status}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const at = `${vault}|${route}`;
    let s = this.latency.get(at);
    if (!s) this.latency.set(at, (s = { count: 0, sumMs: 0, buckets: BUCKETS_MS.map(() => 0) }));
    s.count++;
    s.sumMs += ms;
    s.buckets = s.buckets.map((n, i) => (ms <= (BUCKETS_MS[i] ?? Number.POSITIVE_INFINITY) ? n + 1 : n));
  }

  /**
   * The exposition: the default vault's series and gauges, and those of the named vaults in
   * `named` (vault name → its gauges); a vault not in it is left out, requests and all.
   */
  render(gauges: Gauges, named: Record<string, Gauges> = {}): string {
    const shown = (vault: string) => vault === "" || vault in named;
    const label = (vault: string) => (vault === "" ? "" : `,vault="${vault}"`);
    const lines: string[] = [];
    lines.push("# HELP indx_http_requests_total HTTP requests by route template, method and status.");
    lines.push("# TYPE indx_http_requests_total counter");
    for (const [key, n] of this.requests) {
      const [vault = "", route, method, status] = key.split("|");
      if (shown(vault)) lines.push(`indx_http_requests_total{route="${route}",method="${method}",status="${status}"${label(vault)}} ${n}`);
    }
    lines.push("# HELP indx_http_request_duration_seconds Request latency by route template.");
    lines.push("# TYPE indx_http_request_duration_seconds histogram");
    for (const [at, s] of this.latency) {
      const [vault = "", route] = at.split("|");
      if (!shown(vault)) continue;
      const l = `route="${route}"${label(vault)}`;
      for (const [i, b] of BUCKETS_MS.entries()) lines.push(`indx_http_request_duration_seconds_bucket{${l},le="${b / 1000}"} ${s.buckets[i]}`);
      lines.push(`indx_http_request_duration_seconds_bucket{${l},le="+Inf"} ${s.count}`);
      lines.push(`indx_http_request_duration_seconds_sum{${l}} ${s.sumMs / 1000}`);
      lines.push(`indx_http_request_duration_seconds_count{${l}} ${s.count}`);
    }
    lines.push("# TYPE indx_uptime_seconds gauge", `indx_uptime_seconds ${Math.round((Date.now() - this.started) / 1000)}`);
    const names = new Set([...Object.keys(gauges), ...Object.values(named).flatMap((g) => Object.keys(g))]);
    for (const name of names) {
      lines.push(`# TYPE ${name} gauge`);
      if (name in gauges) lines.push(`${name} ${gauges[name]}`);
      for (const [vault, g] of Object.entries(named)) if (name in g) lines.push(`${name}{vault="${vault}"} ${g[name]}`);
    }
    return `${lines.join("\n")}\n`;
  }
}
