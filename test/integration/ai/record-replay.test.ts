import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config/load.ts";
import { createChatProvider } from "../../../src/providers/providers.ts";
import { chatSettings } from "../../../src/providers/settings.ts";
import { type ChatRequest, ProviderError, type ProviderName } from "../../../src/providers/types.ts";
import { DenyWall } from "../../../src/providers/wall.ts";
import { type FakeAiServer, fakeChatEnv, startFakeAiServer } from "../../support/fake-ai-server.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "indx-ai-fixtures-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function provider(fake: FakeAiServer, name: ProviderName, env: Record<string, string>, dataDir: string | null = null) {
  const config = loadConfig({ env: { HOME: "/nonexistent", INDX_CONFIG: "/nonexistent/config.toml", ...fakeChatEnv(fake, name), ...env } });
  return createChatProvider(chatSettings(config)!, () => DenyWall.open(), null, dataDir);
}

const SCHEMA = {
  type: "object",
  properties: { answer: { type: "string" }, score: { type: "number" } },
  required: ["answer", "score"],
  additionalProperties: false,
};
const structured: ChatRequest = { system: "s", messages: [{ role: "user", content: "what is in the notes?" }], jsonSchema: SCHEMA };
const plain: ChatRequest = { system: "s", messages: [{ role: "user", content: "stream this" }] };
const failing: ChatRequest = { system: "s", messages: [{ role: "user", content: "this one fails" }] };

async function caught(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe.each(["ollama", "openai"] as const)("AI_TEST_RECORD then AI_TEST_REPLAY (%s)", (name) => {
  test("replays each recorded exchange with the server stopped; a new request is a clear miss", async () => {
    const dir = tmp();
    const fake = startFakeAiServer();
    fake.scriptChat({ content: { answer: "recorded", score: 3 }, usage: { input: 40, output: 7 } }, { content: "one two three", chunks: 3 }, { status: 500 });
    const recorder = provider(fake, name, { AI_TEST_RECORD: "1", INDX_AI_FIXTURES_DIR: dir });
    const live1 = await recorder.generate(structured);
    const liveDeltas: string[] = [];
    const live2 = await recorder.generate({ ...plain, onDelta: (t) => liveDeltas.push(t) });
    const liveErr = await caught(recorder.generate(failing));
    expect(fake.chats).toHaveLength(3);
    expect(readdirSync(dir).filter((f) => f.endsWith(".json"))).toHaveLength(3);
    fake.stop();

    const replayer = provider(fake, name, { AI_TEST_REPLAY: "1", INDX_AI_FIXTURES_DIR: dir });
    expect(await replayer.generate(structured)).toEqual(live1);
    expect(live1.structured).toEqual({ answer: "recorded", score: 3 });
    const deltas: string[] = [];
    expect(await replayer.generate({ ...plain, onDelta: (t) => deltas.push(t) })).toEqual(live2);
    expect(deltas).toEqual(liveDeltas);
    expect(deltas.length).toBe(3);
    const replayedErr = await caught(replayer.generate(failing));
    expect(replayedErr).toMatchObject({ kind: liveErr.kind, status: 500, code: "ai_provider_error" });

    // The fingerprint ignores the order of a schema's keys, not its content.
    const reordered = {
      ...structured,
      jsonSchema: { additionalProperties: false, required: ["answer", "score"], properties: SCHEMA.properties, type: "object" },
    };
    expect((await replayer.generate(reordered)).structured).toEqual(live1.structured);
    const miss = await caught(replayer.generate({ ...structured, messages: [{ role: "user", content: "something never recorded" }] }));
    expect(miss).toMatchObject({ kind: "replay_miss", code: "ai_unavailable" });
    expect(miss.message).toMatch(/no recorded exchange for request [0-9a-f]{32} \(record it with AI_TEST_RECORD=1\)/);
    expect(miss.message).not.toContain(dir);
    // A different temperature is a different exchange.
    expect((await caught(replayer.generate({ ...structured, temperature: 0.9 }))).kind).toBe("replay_miss");
  });
});

describe("fixtures", () => {
  test("default to <data dir>/ai-fixtures and keep the request readable", async () => {
    const dataDir = tmp();
    const fake = startFakeAiServer();
    try {
      await provider(fake, "ollama", { AI_TEST_RECORD: "1" }, dataDir).generate(structured);
    } finally {
      fake.stop();
    }
    const files = readdirSync(join(dataDir, "ai-fixtures"));
    expect(files).toHaveLength(1);
    const fixture = JSON.parse(readFileSync(join(dataDir, "ai-fixtures", files[0]!), "utf8"));
    expect(fixture.request).toMatchObject({ provider: "ollama", model: "fake-chat", messages: structured.messages, temperature: 0, seed: 0 });
    expect(`${fixture.fingerprint}.json`).toBe(files[0]!);
  });

  test("without a fixtures folder or a data dir the mode is a configuration error", () => {
    const fake = startFakeAiServer();
    fake.stop();
    expect(() => provider(fake, "ollama", { AI_TEST_REPLAY: "1" })).toThrow(/INDX_AI_FIXTURES_DIR/);
  });

  test("a timeout is not recorded: replay does not pretend the server timed out", async () => {
    const dir = tmp();
    const fake = startFakeAiServer();
    fake.scriptChat({ hang: true });
    try {
      const err = await caught(provider(fake, "ollama", { AI_TEST_RECORD: "1", INDX_AI_FIXTURES_DIR: dir, INDX_AI_TIMEOUT_MS: "200" }).generate(plain));
      expect(err.kind).toBe("timeout");
    } finally {
      fake.stop();
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
