import { localServeUrl, probeHealth } from "../service/health.ts";
import { command } from "./command.ts";
import { configFromFlags } from "./context.ts";
import { print } from "./io.ts";
import { chooseFormat, render } from "./output.ts";

/** `indx health`: the probe a container HEALTHCHECK or a monitor runs; exit 1 when the server does not answer. */
export const healthCommand = command({
  description: "Ask the running `indx serve` of this configuration whether it is up (GET /health); exits 1 when it is not.",
  long: "Reads server.host, server.port and whether TLS is on from the configuration (a wildcard bind is asked on loopback), or takes --url. Sends no token. The container image's HEALTHCHECK runs it.",
  examples: ["indx health", "indx health --url https://notes.example.com/health"],
  args: {
    url: { type: "string", description: "The /health URL to ask instead.", valueHint: "url" },
    timeout: { type: "string", description: "Milliseconds to wait (default 3000).", valueHint: "ms" },
  },
  async run(flags) {
    const config = configFromFlags(flags);
    const tls = Boolean(config.str("server.tls_cert") && config.str("server.tls_key"));
    const url = flags.url ?? localServeUrl(config.str("server.host") ?? "127.0.0.1", config.int("server.port"), tls);
    const timeout = Number(flags.timeout ?? 3000);
    const report = await probeHealth(url, Number.isFinite(timeout) && timeout > 0 ? Math.min(timeout, 60_000) : 3000);
    print(
      render(report, chooseFormat(flags, process.stdout.isTTY === true), () =>
        report.ok ? `up: ${url} (indx ${report.version ?? "?"})` : `down: ${url}: ${report.error}`,
      ),
    );
    if (!report.ok) process.exitCode = 1;
  },
});
