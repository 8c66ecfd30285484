import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Headless Chromium driven over the Chrome DevTools Protocol (one WebSocket, flattened target
 * sessions): enough to open a page, press keys like a keyboard-only user, read the focused
 * element and take screenshots. No dependency beyond a chromium binary; tests skip without one.
 */
export function findChromium(): string | null {
  const named = process.env.INDX_CHROMIUM;
  if (named) return existsSync(named) ? named : null;
  for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    const path = Bun.which(name);
    if (path) return path;
  }
  return null;
}

type Pending = { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void };

export class Browser {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(method: string, params: Record<string, unknown>, sessionId?: string) => void>();

  private constructor(
    private readonly proc: Bun.Subprocess<"ignore", "ignore", "pipe">,
    private readonly ws: WebSocket,
    private readonly profile: string,
  ) {
    ws.addEventListener("message", (ev) => {
      const msg = JSON.parse(String(ev.data)) as {
        id?: number;
        result?: Record<string, unknown>;
        error?: { message: string };
        method?: string;
        params?: Record<string, unknown>;
        sessionId?: string;
      };
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(msg.error.message));
        else p?.resolve(msg.result ?? {});
      } else if (msg.method) for (const fn of this.listeners) fn(msg.method, msg.params ?? {}, msg.sessionId);
    });
  }

  /**
   * `trustSpki`: base64 SHA-256 public-key hashes whose certificates are accepted although no
   * trusted CA signed them (a test server's certificate, and only that key: never outside tests).
   */
  static async launch(bin: string, opts: { trustSpki?: readonly string[] } = {}): Promise<Browser> {
    const profile = mkdtempSync(join(tmpdir(), "indx-chromium-"));
    const proc = Bun.spawn(
      [
        bin,
        "--headless=new",
        "--remote-debugging-port=0",
        `--user-data-dir=${profile}`,
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--hide-scrollbars",
        "--force-color-profile=srgb",
        ...(opts.trustSpki?.length ? [`--ignore-certificate-errors-spki-list=${opts.trustSpki.join(",")}`] : []),
        "about:blank",
      ],
      { stdin: "ignore", stdout: "ignore", stderr: "pipe" },
    );
    const reader = proc.stderr.getReader();
    let seen = "";
    let url = "";
    const deadline = Date.now() + 30_000;
    while (!url && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
      url = /DevTools listening on (ws:\/\/\S+)/.exec(seen)?.[1] ?? "";
    }
    reader.releaseLock();
    if (!url) {
      proc.kill();
      throw new Error(`chromium did not start: ${seen.slice(-500)}`);
    }
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("open", () => resolve());
      ws.addEventListener("error", () => reject(new Error("CDP connection failed")));
    });
    return new Browser(proc, ws, profile);
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = ++this.nextId;
    this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  /** Waits for an event of one session (e.g. Page.loadEventFired). */
  event(method: string, sessionId: string, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(fn);
        reject(new Error(`timed out waiting for ${method}`));
      }, timeoutMs);
      const fn = (m: string, params: Record<string, unknown>, sid?: string) => {
        if (m !== method || sid !== sessionId) return;
        clearTimeout(timer);
        this.listeners.delete(fn);
        resolve(params);
      };
      this.listeners.add(fn);
    });
  }

  async newPage(): Promise<Page> {
    const { targetId } = (await this.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
    const { sessionId } = (await this.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
    const page = new Page(this, sessionId);
    await page.send("Page.enable");
    await page.send("Runtime.enable");
    return page;
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.send("Browser.close"), Bun.sleep(2000)]);
    } catch {}
    this.ws.close();
    this.proc.kill();
    await this.proc.exited;
    rmSync(this.profile, { recursive: true, force: true });
  }
}

const KEYS: Record<string, { code: string; keyCode: number; text?: string }> = {
  Tab: { code: "Tab", keyCode: 9 },
  Enter: { code: "Enter", keyCode: 13, text: "\r" },
  ArrowUp: { code: "ArrowUp", keyCode: 38 },
  ArrowDown: { code: "ArrowDown", keyCode: 40 },
  " ": { code: "Space", keyCode: 32, text: " " },
};

export class Page {
  constructor(
    private readonly browser: Browser,
    readonly sessionId: string,
  ) {}

  send(method: string, params: Record<string, unknown> = {}) {
    return this.browser.send(method, params, this.sessionId);
  }

  /** Navigates and waits for the load event. */
  async goto(url: string): Promise<void> {
    const loaded = this.browser.event("Page.loadEventFired", this.sessionId);
    await this.send("Page.navigate", { url });
    await loaded;
  }

  /** The next load (after a form submission, a redirect). */
  nextLoad(): Promise<Record<string, unknown>> {
    return this.browser.event("Page.loadEventFired", this.sessionId);
  }

  async evaluate<T>(expression: string): Promise<T> {
    const r = (await this.send("Runtime.evaluate", { expression, returnByValue: true })) as { result: { value: T } };
    return r.result.value;
  }

  async press(key: string, modifiers = 0): Promise<void> {
    const k = KEYS[key];
    if (!k) throw new Error(`no key ${key}`);
    const common = { key, code: k.code, windowsVirtualKeyCode: k.keyCode, nativeVirtualKeyCode: k.keyCode, modifiers };
    await this.send("Input.dispatchKeyEvent", { type: k.text ? "keyDown" : "rawKeyDown", ...common, ...(k.text ? { text: k.text } : {}) });
    await this.send("Input.dispatchKeyEvent", { type: "keyUp", ...common });
  }

  async type(text: string): Promise<void> {
    await this.send("Input.insertText", { text });
  }

  /** A short description of the focused element: `id`, else `name=value`, else its tag. */
  focused(): Promise<string> {
    return this.evaluate<string>("(e => e ? (e.id || (e.name ? e.name + '=' + e.value : e.tagName.toLowerCase())) : 'none')(document.activeElement)");
  }

  async viewport(width: number, height: number, mobile: boolean): Promise<void> {
    await this.send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: mobile ? 2 : 1, mobile });
  }

  async screenshot(): Promise<Buffer> {
    const { data } = (await this.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true })) as { data: string };
    return Buffer.from(data, "base64");
  }
}
