import { describe, expect, it } from "vitest";
import { parseCliArgs, parseHeader, UsageError } from "../src/args.js";

describe("parseHeader", () => {
  it("splits on the first colon and trims the value", () => {
    expect(parseHeader("CF-Access-Client-Id:  abc.access ")).toEqual(["CF-Access-Client-Id", "abc.access"]);
    expect(parseHeader("X-Url: https://a.example:8443/x")).toEqual(["X-Url", "https://a.example:8443/x"]);
  });

  it("allows an empty value", () => {
    expect(parseHeader("X-Empty:")).toEqual(["X-Empty", ""]);
  });

  it.each([
    ["no colon", "NoColon"],
    ["empty name", ": value"],
    ["space in name", "Bad Name: v"],
    ["CR/LF injection", "X-A: v\r\nX-B: w"],
    ["the token header", "Authorization: Bearer x"],
    ["a handshake header", "Sec-WebSocket-Key: abc"],
    ["Host", "host: example.com"],
  ])("rejects %s", (_what, raw) => {
    expect(() => parseHeader(raw)).toThrow(UsageError);
  });
});

describe("parseCliArgs", () => {
  it("defaults to proxy mode, info logs and a 300 s give-up", () => {
    expect(parseCliArgs([])).toEqual({ mode: "proxy", url: undefined, token: undefined, headers: {}, logLevel: "info", giveUpAfterSeconds: 300, upstreams: [] });
  });

  it("collects repeated --header flags", () => {
    const options = parseCliArgs(["--header", "A: 1", "--header", "B: 2", "--url", "wss://x.example/acp", "--token", "t"]);
    expect(options.headers).toEqual({ A: "1", B: "2" });
    expect(options.url).toBe("wss://x.example/acp");
    expect(options.token).toBe("t");
  });

  it("parses --give-up-after as seconds, fractions included", () => {
    expect(parseCliArgs(["--give-up-after", "0.5"]).giveUpAfterSeconds).toBe(0.5);
    expect(parseCliArgs(["--give-up-after=30"]).giveUpAfterSeconds).toBe(30);
  });

  it.each([
    [["--give-up-after", "-1"]],
    [["--give-up-after", "soon"]],
    [["--log-level", "verbose"]],
    [["--nope"]],
    [["positional"]],
    [["--url"]],
    [["--token", ""]],
    [["--check", "--setup"]],
  ])("rejects %j with a usage error", (argv) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
  });

  it("selects modes, with --help and --version winning", () => {
    expect(parseCliArgs(["--check"]).mode).toBe("check");
    expect(parseCliArgs(["--setup"]).mode).toBe("setup");
    expect(parseCliArgs(["--check", "--version"]).mode).toBe("version");
    expect(parseCliArgs(["-h", "--version"]).mode).toBe("help");
  });
});
