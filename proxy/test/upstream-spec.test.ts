import { describe, expect, it } from "vitest";
import { parseCliArgs, UsageError } from "../src/args.js";
import { ConfigError } from "../src/config.js";
import { parseUpstreamFlag, upstreamCommands } from "../src/upstream-spec.js";

describe("--upstream and the saved \"upstreams\" map", () => {
  it("parses repeatable id=command flags", () => {
    expect(parseCliArgs(["--upstream", 'copilot=copilot --acp --stdio', "--upstream", "x=agent 'a b'"]).upstreams).toEqual(["copilot=copilot --acp --stdio", "x=agent 'a b'"]);
    expect(parseUpstreamFlag("copilot=copilot --acp --stdio")).toEqual(["copilot", "copilot --acp --stdio"]);
    expect(parseUpstreamFlag("a=b=c")).toEqual(["a", "b=c"]);
  });

  it("rejects a flag without id, with a bad id, an empty command or a multi-line command", () => {
    expect(() => parseUpstreamFlag("copilot")).toThrow(new UsageError('--upstream expects id="command", got "copilot"'));
    expect(() => parseUpstreamFlag("=cmd")).toThrow(UsageError);
    expect(() => parseUpstreamFlag("a b=cmd")).toThrow(/--upstream "a b": the id must be letters, digits/);
    expect(() => parseUpstreamFlag("a=  ")).toThrow("--upstream a: the command is empty");
    expect(() => parseUpstreamFlag("a=x\nrm -rf /")).toThrow("--upstream a: the command must be one line");
  });

  it("merges the saved map with the flags; a flag wins", () => {
    const saved = { url: "wss://x/acp", upstreams: { copilot: "copilot --acp --stdio", other: "other-agent" } };
    expect(upstreamCommands(["other=better-agent"], saved, "/cfg.json")).toEqual({ copilot: "copilot --acp --stdio", other: "better-agent" });
    expect(upstreamCommands([], undefined, "/cfg.json")).toEqual({});
  });

  it("names the saved config's bad entry", () => {
    expect(() => upstreamCommands([], { upstreams: { copilot: "" } }, "/cfg.json")).toThrow(new ConfigError('/cfg.json: "upstreams".copilot: the command is empty'));
    expect(() => upstreamCommands([], { upstreams: ["copilot"] }, "/cfg.json")).toThrow(ConfigError);
  });
});
