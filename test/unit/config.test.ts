import { describe, expect, it, vi } from "vitest";
import {
  coalesceMs,
  contextWindowFor,
  DEFAULT_BASE_URL,
  DEFAULT_COALESCE_MS,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MODEL,
  maxFrameBytes,
  modelSettings,
  tokenTable,
} from "../../src/config.js";
import type { Env } from "../../src/env.js";

const env = (vars: Partial<Env>): Env => vars as Env;

describe("tokenTable", () => {
  it("maps each token to its tenant", () => {
    expect([...tokenTable("alpha:tok-alpha,beta:tok-beta")]).toEqual([
      ["tok-alpha", "alpha"],
      ["tok-beta", "beta"],
    ]);
  });

  it("trims spaces around pairs, tenants and tokens", () => {
    expect([...tokenTable("  alpha : tok-a ,\n beta:tok-b  ")]).toEqual([
      ["tok-a", "alpha"],
      ["tok-b", "beta"],
    ]);
  });

  it("skips malformed pairs: no colon, no tenant, no token, empty entries", () => {
    expect([...tokenTable("nocolon,:tok-x,tenant:,tenant:   ,,  , ok:tok-ok")]).toEqual([["tok-ok", "ok"]]);
  });

  it("leaves out a pair whose tenant could never be administered, warning once per setting", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const raw = "team a:tok-1,ok:tok-ok,-dash:tok-2";
    expect([...tokenTable(raw)]).toEqual([["tok-ok", "ok"]]);
    expect([...tokenTable(raw)]).toEqual([["tok-ok", "ok"]]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain('"team a", "-dash"');
    warn.mockRestore();
  });

  it("splits at the first colon, so tokens may contain colons", () => {
    expect([...tokenTable("t:abc:def")]).toEqual([["abc:def", "t"]]);
  });

  it("is empty when unset or blank", () => {
    expect(tokenTable(undefined).size).toBe(0);
    expect(tokenTable("").size).toBe(0);
    expect(tokenTable(" , ").size).toBe(0);
  });
});

describe("modelSettings", () => {
  it("has working defaults for an empty environment", () => {
    expect(modelSettings(env({}))).toEqual({
      baseURL: DEFAULT_BASE_URL,
      apiKey: undefined,
      defaultModel: DEFAULT_MODEL,
      models: [DEFAULT_MODEL],
      contextWindowOverride: undefined,
    });
    expect(DEFAULT_BASE_URL).toBe("https://api.openai.com/v1");
  });

  it("treats blank values as unset", () => {
    expect(modelSettings(env({ OPENAI_BASE_URL: " ", OPENAI_API_KEY: "  ", HERMES_MODEL: "", HERMES_MODELS: " , " }))).toEqual({
      baseURL: DEFAULT_BASE_URL,
      apiKey: undefined,
      defaultModel: DEFAULT_MODEL,
      models: [DEFAULT_MODEL],
      contextWindowOverride: undefined,
    });
  });

  it("reads and trims the configured values", () => {
    expect(
      modelSettings(
        env({
          OPENAI_BASE_URL: " http://127.0.0.1:8788/v1 ",
          OPENAI_API_KEY: " sk-test ",
          HERMES_MODEL: " gpt-x ",
          HERMES_CONTEXT_WINDOW: "200000",
        }),
      ),
    ).toEqual({
      baseURL: "http://127.0.0.1:8788/v1",
      apiKey: "sk-test",
      defaultModel: "gpt-x",
      models: ["gpt-x"],
      contextWindowOverride: 200_000,
    });
  });

  it("keeps HERMES_MODELS as listed when it contains the default model", () => {
    expect(modelSettings(env({ HERMES_MODEL: "b", HERMES_MODELS: "a, b ,c" })).models).toEqual(["a", "b", "c"]);
  });

  it("puts the default model first when HERMES_MODELS lacks it", () => {
    expect(modelSettings(env({ HERMES_MODEL: "d", HERMES_MODELS: "a,b" })).models).toEqual(["d", "a", "b"]);
    expect(modelSettings(env({ HERMES_MODELS: "a" })).models).toEqual([DEFAULT_MODEL, "a"]);
  });

  it("ignores a HERMES_CONTEXT_WINDOW that is not a positive integer", () => {
    for (const raw of ["abc", "0", "-5", "1.5", ""]) {
      const settings = modelSettings(env({ HERMES_CONTEXT_WINDOW: raw, HERMES_MODEL: "some-local-model" }));
      expect(settings.contextWindowOverride, raw).toBeUndefined();
    }
  });
});

describe("contextWindowFor", () => {
  it("knows the windows of common model families, provider prefixes included", () => {
    expect(contextWindowFor("gpt-4o-mini", { contextWindowOverride: undefined })).toBe(128_000);
    expect(contextWindowFor("gpt-5-mini", { contextWindowOverride: undefined })).toBe(400_000);
    expect(contextWindowFor("openai/gpt-4.1", { contextWindowOverride: undefined })).toBe(1_047_576);
    expect(contextWindowFor("anthropic/claude-sonnet-4", { contextWindowOverride: undefined })).toBe(200_000);
  });

  it("uses the default for unknown models and the override for every model", () => {
    expect(contextWindowFor("mock-model", { contextWindowOverride: undefined })).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowFor("gpt-5", { contextWindowOverride: 32_000 })).toBe(32_000);
    expect(contextWindowFor("mock-model", { contextWindowOverride: 32_000 })).toBe(32_000);
  });
});

describe("maxFrameBytes and coalesceMs", () => {
  it("reads the frame limit, defaulting to 4 MiB", () => {
    expect(maxFrameBytes(env({}))).toBe(DEFAULT_MAX_FRAME_BYTES);
    expect(DEFAULT_MAX_FRAME_BYTES).toBe(4 * 1024 * 1024);
    expect(maxFrameBytes(env({ HERMES_MAX_FRAME_BYTES: "65536" }))).toBe(65_536);
    expect(maxFrameBytes(env({ HERMES_MAX_FRAME_BYTES: "-1" }))).toBe(DEFAULT_MAX_FRAME_BYTES);
  });

  it("reads the coalescing window, allowing 0 and defaulting when unset, blank or invalid", () => {
    expect(coalesceMs(env({ HERMES_COALESCE_MS: "0" }))).toBe(0);
    expect(coalesceMs(env({ HERMES_COALESCE_MS: "20" }))).toBe(20);
    expect(coalesceMs(env({}))).toBe(DEFAULT_COALESCE_MS);
    expect(coalesceMs(env({ HERMES_COALESCE_MS: "" }))).toBe(DEFAULT_COALESCE_MS);
    expect(coalesceMs(env({ HERMES_COALESCE_MS: "  " }))).toBe(DEFAULT_COALESCE_MS);
    expect(coalesceMs(env({ HERMES_COALESCE_MS: "-3" }))).toBe(DEFAULT_COALESCE_MS);
    expect(coalesceMs(env({ HERMES_COALESCE_MS: "soon" }))).toBe(DEFAULT_COALESCE_MS);
  });
});
