import { describe, expect, it } from "vitest";
import { DEFAULT_UPSTREAM_TIMEOUT_MS, upstreamIdOf, upstreamSettings } from "../../../../src/agent/providers/upstream-config.js";
import { modelSettings } from "../../../../src/config.js";
import type { Env } from "../../../../src/env.js";

describe("upstreamSettings", () => {
  it("reads HERMES_ACP_UPSTREAMS, names default to the id, duplicates keep the first", () => {
    const s = upstreamSettings({
      HERMES_ACP_UPSTREAMS: JSON.stringify([
        { id: "copilot", name: "GitHub Copilot", url: "wss://agents.example/acp", token: "t" },
        { id: "other", url: "ws://127.0.0.1:9000/acp" },
        { id: "copilot", url: "wss://dup.example/acp" },
      ]),
    });
    expect(s).toEqual({
      timeoutMs: DEFAULT_UPSTREAM_TIMEOUT_MS,
      remote: [
        { id: "copilot", name: "GitHub Copilot", url: "wss://agents.example/acp", token: "t" },
        { id: "other", name: "other", url: "ws://127.0.0.1:9000/acp" },
      ],
    });
  });

  it("ignores a malformed list and says why", () => {
    expect(upstreamSettings({ HERMES_ACP_UPSTREAMS: "[{" })).toMatchObject({ remote: [], problem: "HERMES_ACP_UPSTREAMS is not valid JSON" });
    expect(upstreamSettings({ HERMES_ACP_UPSTREAMS: '[{"id": "x", "url": "https://x"}]' }).problem).toBe("HERMES_ACP_UPSTREAMS: 0.url: a ws:// or wss:// URL");
    expect(upstreamSettings({ HERMES_ACP_UPSTREAMS: '[{"id": "a b", "url": "wss://x"}]' }).problem).toMatch(/^HERMES_ACP_UPSTREAMS: 0\.id: /);
    expect(upstreamSettings({ HERMES_ACP_UPSTREAMS: '{"id": "x"}' }).problem).toMatch(/^HERMES_ACP_UPSTREAMS: \(root\): /);
  });

  it("reads HERMES_ACP_UPSTREAM_TIMEOUT_MS, falling back to 120000", () => {
    expect(upstreamSettings({ HERMES_ACP_UPSTREAM_TIMEOUT_MS: "5000" }).timeoutMs).toBe(5000);
    expect(upstreamSettings({ HERMES_ACP_UPSTREAM_TIMEOUT_MS: "-1" }).timeoutMs).toBe(120_000);
    expect(upstreamSettings({ HERMES_ACP_UPSTREAM_TIMEOUT_MS: "soon" }).timeoutMs).toBe(120_000);
    // Past what a timer can hold it would fire at once.
    expect(upstreamSettings({ HERMES_ACP_UPSTREAM_TIMEOUT_MS: "3000000000" }).timeoutMs).toBe(120_000);
  });

  it("lists acp:<id> models after the configured ones", () => {
    const env = { HERMES_MODEL: "gpt-4o", HERMES_MODELS: "gpt-4o,o3", HERMES_ACP_UPSTREAMS: '[{"id": "copilot", "url": "wss://x/acp"}]' } as Partial<Env> as Env;
    expect(modelSettings(env).models).toEqual(["gpt-4o", "o3", "acp:copilot"]);
    expect(upstreamIdOf("acp:copilot")).toBe("copilot");
    expect(upstreamIdOf("gpt-4o")).toBeNull();
  });
});
