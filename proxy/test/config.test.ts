import { readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ConfigError,
  configPath,
  DEFAULT_URL,
  describeTokenSource,
  healthUrl,
  normalizeUrl,
  readSavedConfig,
  resolveConfig,
  writeSavedConfig,
} from "../src/config.js";
import { removeScratchDirs, scratchDir } from "../../test/support/scratch-dir.js";

afterAll(removeScratchDirs);

const PATH = "/home/u/.config/hermes-edge/config.json";
const resolve = (flags: { url?: string; token?: string }, env: Record<string, string>, saved?: { url?: string; token?: string }) =>
  resolveConfig({ flags, env, saved, configPath: PATH });

describe("resolveConfig precedence", () => {
  const saved = { url: "wss://saved.example/acp", token: "saved-token" };
  const env = { HERMES_EDGE_URL: "wss://env.example/acp", HERMES_EDGE_TOKEN: "env-token" };

  it("prefers flags over env over the saved config", () => {
    const r = resolve({ url: "wss://flag.example/acp", token: "flag-token" }, env, saved);
    expect([r.url, r.urlSource, r.token, r.tokenSource]).toEqual(["wss://flag.example/acp", "flag", "flag-token", "flag"]);
  });

  it("uses env when no flag is given", () => {
    const r = resolve({}, env, saved);
    expect([r.url, r.urlSource, r.token, r.tokenSource]).toEqual(["wss://env.example/acp", "env", "env-token", "env"]);
  });

  it("uses the saved config when neither flag nor env is set", () => {
    const r = resolve({}, {}, saved);
    expect([r.url, r.urlSource, r.token, r.tokenSource]).toEqual(["wss://saved.example/acp", "config", "saved-token", "config"]);
  });

  it("falls back to the local wrangler dev URL and no token", () => {
    const r = resolve({}, {}, undefined);
    expect([r.url, r.urlSource, r.token, r.tokenSource]).toEqual([DEFAULT_URL, "default", undefined, "none"]);
  });

  it("resolves URL and token independently", () => {
    const r = resolve({ url: "wss://flag.example/acp" }, { HERMES_EDGE_TOKEN: "env-token" }, saved);
    expect([r.urlSource, r.tokenSource]).toEqual(["flag", "env"]);
  });

  it("treats an empty environment variable as unset", () => {
    const r = resolve({}, { HERMES_EDGE_URL: "", HERMES_EDGE_TOKEN: "  " }, saved);
    expect([r.urlSource, r.tokenSource]).toEqual(["config", "config"]);
  });

  it("names where a bad URL came from", () => {
    expect(() => resolve({}, { HERMES_EDGE_URL: "ftp://x" }, undefined)).toThrow(/HERMES_EDGE_URL/);
  });
});

describe("normalizeUrl", () => {
  it.each([
    ["https://x.workers.dev", "wss://x.workers.dev/acp"],
    ["http://127.0.0.1:8787/", "ws://127.0.0.1:8787/acp"],
    ["wss://x.example/custom/acp?tenant=a", "wss://x.example/custom/acp?tenant=a"],
    ["ws://localhost:8787/acp#frag", "ws://localhost:8787/acp"],
  ])("%s → %s", (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  it("rejects non-URLs and other schemes", () => {
    expect(() => normalizeUrl("not a url")).toThrow(ConfigError);
    expect(() => normalizeUrl("file:///etc/passwd")).toThrow(ConfigError);
  });

  it("derives the /health URL on the same host", () => {
    expect(healthUrl("wss://x.example/acp?t=1")).toBe("https://x.example/health");
    expect(healthUrl("ws://127.0.0.1:8787/acp")).toBe("http://127.0.0.1:8787/health");
  });
});

describe("configPath", () => {
  it("uses an absolute XDG_CONFIG_HOME", () => {
    expect(configPath({ XDG_CONFIG_HOME: "/x/cfg" }, "/home/u")).toBe("/x/cfg/hermes-edge/config.json");
  });

  it("ignores a relative XDG_CONFIG_HOME, as the XDG spec requires", () => {
    expect(configPath({ XDG_CONFIG_HOME: "rel" }, "/home/u")).toBe(PATH);
    expect(configPath({}, "/home/u")).toBe(PATH);
  });
});

describe("saved config file", () => {
  const fresh = () => join(scratchDir("hermes-config-"), "nested", "hermes-edge", "config.json");

  it("is written with mode 0600 in a directory with mode 0700, and reads back", () => {
    const path = fresh();
    writeSavedConfig(path, { url: "wss://x.example/acp", token: "secret" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    expect(readSavedConfig(path)).toEqual({ url: "wss://x.example/acp", token: "secret" });
  });

  it("tightens the mode of a file that already existed with looser permissions", () => {
    const path = fresh();
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "{}", { mode: 0o644 });
    writeSavedConfig(path, { token: "secret" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ token: "secret" });
  });

  it("is absent without error when the file does not exist", () => {
    expect(readSavedConfig(fresh())).toBeUndefined();
  });

  it("is refused with a clear error when invalid", () => {
    const path = fresh();
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "{not json");
    expect(() => readSavedConfig(path)).toThrow(/not valid JSON/);
    writeFileSync(path, JSON.stringify({ token: 42 }));
    expect(() => readSavedConfig(path)).toThrow(/token/);
  });
});

describe("describeTokenSource", () => {
  it("names each source without revealing the token", () => {
    expect(describeTokenSource("flag", PATH)).toMatch(/--token/);
    expect(describeTokenSource("env", PATH)).toMatch(/HERMES_EDGE_TOKEN/);
    expect(describeTokenSource("config", PATH)).toContain(PATH);
    expect(describeTokenSource("none", PATH)).toMatch(/no token/);
  });
});
