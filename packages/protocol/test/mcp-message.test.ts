import { describe, expect, it } from "vitest";
import { parseMcpOutcome, zMcpServerEntry } from "../src/mcp-message.js";

describe("zMcpServerEntry", () => {
  it("reads an entry without type as stdio, with empty lists for null args and env", () => {
    expect(zMcpServerEntry.parse({ name: "fs", command: "/bin/fs", args: null, env: null })).toEqual({ type: "stdio", name: "fs", command: "/bin/fs", args: [], env: [] });
  });

  it("parses http, sse and acp entries", () => {
    expect(zMcpServerEntry.parse({ type: "http", name: "h", url: "https://x/mcp", headers: [{ name: "A", value: "b" }] })).toMatchObject({ type: "http", headers: [{ name: "A", value: "b" }] });
    expect(zMcpServerEntry.parse({ type: "sse", name: "s", url: "https://x/sse", headers: null })).toMatchObject({ type: "sse", headers: [] });
    expect(zMcpServerEntry.parse({ type: "acp", name: "a", serverId: "id-1" })).toEqual({ type: "acp", name: "a", serverId: "id-1" });
  });

  it("says what is wrong with a bad entry", () => {
    const issues = (v: unknown) => zMcpServerEntry.safeParse(v).error?.issues.map((i) => ({ path: i.path, message: i.message }));
    expect(issues("stdio")).toEqual([{ path: [], message: "an MCP server entry must be an object" }]);
    expect(issues({ type: "ws", name: "x" })).toEqual([{ path: ["type"], message: 'unknown MCP server type "ws"; expected http, sse, acp or stdio' }]);
    expect(issues({ type: "http", name: "", url: "https://x" })?.map((i) => i.path)).toEqual([["name"]]);
  });
});

describe("parseMcpOutcome", () => {
  it("reads exactly one inner outcome, preferring result", () => {
    expect(parseMcpOutcome({ result: null })).toEqual({ result: null });
    expect(parseMcpOutcome({ error: { code: -32602, message: "bad" } })).toEqual({ error: { code: -32602, message: "bad" } });
    expect(parseMcpOutcome({ result: 1, error: { code: 1, message: "x" } })).toEqual({ result: 1 });
    expect(parseMcpOutcome({})).toBeUndefined();
    expect(parseMcpOutcome({ error: null })).toBeUndefined();
  });
});
