import { describe, expect, it } from "vitest";
import { MAX_MCP_SERVERS } from "@hermes-edge/protocol";
import { zAbsolutePath, zForkSession, zLoadSession, zNewSession, zPrompt, zResumeSession } from "../../../src/acp/params.js";

const issuesOf = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  result.success ? [] : result.error!.issues.map((i) => ({ path: i.path, message: i.message }));

describe("zNewSession", () => {
  it("rejects a relative cwd with an issue at ['cwd']", () => {
    expect(issuesOf(zNewSession.safeParse({ cwd: "work/project", mcpServers: [] }))).toEqual([
      { path: ["cwd"], message: "must be an absolute path" },
    ]);
  });

  it("rejects a cwd containing a NUL byte with an issue at ['cwd']", () => {
    expect(issuesOf(zNewSession.safeParse({ cwd: "/work/a\0b", mcpServers: [] }))).toEqual([
      { path: ["cwd"], message: "must not contain NUL bytes" },
    ]);
  });

  it("rejects a missing or empty cwd", () => {
    expect(issuesOf(zNewSession.safeParse({ mcpServers: [] })).map((i) => i.path)).toEqual([["cwd"]]);
    expect(zNewSession.safeParse({ cwd: "" }).success).toBe(false);
  });

  it("accepts POSIX, Windows drive and UNC absolute paths", () => {
    for (const cwd of ["/home/me/project", "C:\\Users\\me\\project", "d:/src", "\\\\server\\share\\repo"]) {
      expect(zNewSession.safeParse({ cwd, mcpServers: [] }).success, cwd).toBe(true);
    }
    for (const cwd of ["C:relative", "./x", "~/x", "C:"]) {
      expect(zAbsolutePath.safeParse(cwd).success, cwd).toBe(false);
    }
  });

  it("defaults mcpServers to [] and keeps additionalDirectories and unknown fields", () => {
    expect(zNewSession.parse({ cwd: "/w", additionalDirectories: ["/x"], extra: 1 })).toEqual({
      cwd: "/w",
      additionalDirectories: ["/x"],
      mcpServers: [],
      extra: 1,
    });
  });

  it("points at the bad entry of additionalDirectories", () => {
    expect(issuesOf(zNewSession.safeParse({ cwd: "/w", additionalDirectories: ["/ok", "rel"], mcpServers: [] }))).toEqual([
      { path: ["additionalDirectories", 1], message: "must be an absolute path" },
    ]);
  });

  it("rejects an MCP server entry that is not an object", () => {
    expect(issuesOf(zNewSession.safeParse({ cwd: "/w", mcpServers: ["stdio"] }))).toEqual([
      { path: ["mcpServers", 0], message: "an MCP server entry must be an object" },
    ]);
  });
});

describe("the number of MCP servers a session setup declares", () => {
  const servers = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "acp", name: `s${i}`, serverId: `id-${i}` }));

  it(`accepts ${MAX_MCP_SERVERS} servers`, () => {
    expect(MAX_MCP_SERVERS).toBe(32);
    expect(zNewSession.safeParse({ cwd: "/w", mcpServers: servers(MAX_MCP_SERVERS) }).success).toBe(true);
  });

  it("rejects one more in session/new, load, resume and fork with an issue at ['mcpServers'] naming the limit", () => {
    const expected = [{ path: ["mcpServers"], message: `at most ${MAX_MCP_SERVERS} MCP servers per session; this request declares ${MAX_MCP_SERVERS + 1}` }];
    const mcpServers = servers(MAX_MCP_SERVERS + 1);
    expect(issuesOf(zNewSession.safeParse({ cwd: "/w", mcpServers }))).toEqual(expected);
    for (const schema of [zLoadSession, zResumeSession, zForkSession]) expect(issuesOf(schema.safeParse({ sessionId: "s", cwd: "/w", mcpServers }))).toEqual(expected);
  });
});

describe("zPrompt", () => {
  it("rejects an empty prompt with an issue at ['prompt']", () => {
    const issues = issuesOf(zPrompt.safeParse({ sessionId: "s", prompt: [] }));
    expect(issues.map((i) => i.path)).toEqual([["prompt"]]);
  });

  it("rejects an unknown content block type", () => {
    const issues = issuesOf(zPrompt.safeParse({ sessionId: "s", prompt: [{ type: "text", text: "ok" }, { type: "video", data: "x" }] }));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path.slice(0, 2)).toEqual(["prompt", 1]);
  });

  it("rejects a block missing a required field", () => {
    const issues = issuesOf(zPrompt.safeParse({ sessionId: "s", prompt: [{ type: "image", mimeType: "image/png" }] }));
    expect(issues).toEqual([{ path: ["prompt", 0, "data"], message: expect.any(String) }]);
  });

  it("accepts every supported block type", () => {
    const prompt = [
      { type: "text", text: "hi" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///a", name: "a" },
      { type: "resource", resource: { uri: "file:///b", text: "b" } },
      { type: "resource", resource: { uri: "file:///c", blob: "AAAA" } },
    ];
    expect(zPrompt.parse({ sessionId: "s", prompt })).toEqual({ sessionId: "s", prompt });
  });

  it("rejects a missing or empty sessionId", () => {
    expect(issuesOf(zPrompt.safeParse({ prompt: [{ type: "text", text: "hi" }] })).map((i) => i.path)).toEqual([["sessionId"]]);
    expect(zPrompt.safeParse({ sessionId: "", prompt: [{ type: "text", text: "hi" }] }).success).toBe(false);
  });
});
