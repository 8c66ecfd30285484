/** Prometheus text exposition of request counts and latencies, by route template (never by path). */
const BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000];

interface Series {
  count: number;
  sumMs: number;
  buckets: number[];
}

export class Metrics {
  private readonly requests = new Map<string, number>(); // `${route}|${method}|${status}`
  private readonly latency = new Map<string, Series>(); // route
  private readonly started = Date.now();

  observe(route: string, method: string, status: number, ms: number): void {
    const key = `${route}|${method}|${status}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    let s = this.latency.get(route);
    if (!s) this.latency.set(route, (s = { count: 0, sumMs: 0, buckets: BUCKETS_MS.map(() => 0) }));
    s.count++;
    s.sumMs += ms;
    s.buckets = s.buckets.map((n, i) => (ms <= (BUCKETS_MS[i] ?? Number.POSITIVE_INFINITY) ? n + 1 : n));
  }

  render(gauges: Record<string, number>): string {
    const lines: string[] = [];
    lines.push("# HELP indx_http_requests_total HTTP requests by route template, method and status.");
    lines.push("# TYPE indx_http_requests_total counter");
    for (const [key, n] of this.requests) {
      const [route, method, status] = key.split("|");
      lines.push(`indx_http_requests_total{route="${route}",method="${method}",status="${status}"} ${n}`);
    }
    lines.push("# HELP indx_http_request_duration_seconds Request latency by route template.");
    lines.push("# TYPE indx_http_request_duration_seconds histogram");
    for (const [route, s] of this.latency) {
      for (const [i, b] of BUCKETS_MS.entries()) lines.push(`indx_http_request_duration_seconds_bucket{route="${route}",le="${b / 1000}"} ${s.buckets[i]}`);
      lines.push(`indx_http_request_duration_seconds_bucket{route="${route}",le="+Inf"} ${s.count}`);
      lines.push(`indx_http_request_duration_seconds_sum{route="${route}"} ${s.sumMs / 1000}`);
      lines.push(`indx_http_request_duration_seconds_count{route="${route}"} ${s.count}`);
    }
    lines.push("# TYPE indx_uptime_seconds gauge", `indx_uptime_seconds ${Math.round((Date.now() - this.started) / 1000)}`);
    for (const [name, value] of Object.entries(gauges)) lines.push(`# TYPE ${name} gauge`, `${name} ${value}`);
    return `${lines.join("\n")}\n`;
  }
}
