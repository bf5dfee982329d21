/**
 * An MCP server closed while it is still connecting stays closed: the link
 * that arrives afterwards is closed, not kept, and calls are refused. The
 * turn-start look (`recheck`) updates the tools and fails only a server that
 * does not answer.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { McpLink, McpToolInfo } from "../../../src/mcp/mcp-link.js";
import { CONNECT_TIMEOUT_MS, McpServer } from "../../../src/mcp/mcp-server.js";

function fakeLink(): McpLink & { closed: number } {
  return {
    closed: 0,
    listTools: async () => [{ name: "t", inputSchema: { type: "object" } }],
    callTool: async () => ({ content: [] }),
    async close() {
      this.closed += 1;
    },
  };
}

describe("McpServer", () => {
  it("does not come back to life when closed during its connect, and closes the link that arrives", async () => {
    const link = fakeLink();
    let arrive!: (l: McpLink) => void;
    const server = new McpServer("srv", "http", () => new Promise<McpLink>((resolve) => (arrive = resolve)));
    const started = server.start();
    await server.close();
    arrive(link);
    await started;
    expect([server.status, server.cause, link.closed]).toEqual(["skipped", "closed", 1]);
    await expect(server.call("t", {}, new AbortController().signal)).rejects.toThrow(/was closed/);
    await server.start(); // nothing connects it again
    expect(server.status).toBe("skipped");
  });

  it("connects and lists the tools when left alone", async () => {
    const server = new McpServer("srv", "http", async () => fakeLink());
    await server.start();
    expect([server.status, server.tools.map((t) => t.name)]).toEqual(["ready", ["t"]]);
    await expect(server.call("t", {}, new AbortController().signal)).resolves.toEqual({ content: [] });
  });
});

describe("McpServer.recheck", () => {
  afterEach(() => void vi.useRealTimers());

  /** A link whose `tools/list` answers come from `lists`, one per list, counted. */
  function listingLink(lists: (() => Promise<McpToolInfo[]>)[]) {
    let n = 0;
    const link: McpLink = { ...fakeLink(), listTools: () => lists[Math.min(n++, lists.length - 1)]!() };
    return { link, count: () => n };
  }
  const tools = (...names: string[]) => async () => names.map((name) => ({ name, inputSchema: { type: "object" } }));

  it("lists an idle server again, and not while a list is under way", async () => {
    const { link, count } = listingLink([tools("a"), tools("a", "b")]);
    const server = new McpServer("srv", "acp", async () => link);
    const started = server.start();
    server.recheck(); // connecting: that list serves
    await started;
    expect(count()).toBe(1);
    server.recheck();
    server.recheck();
    await server.settled();
    expect([count(), server.status, server.tools.map((t) => t.name)]).toEqual([2, "ready", ["a", "b"]]);
  });

  it("keeps the status and tools of a server that answers it with a failure: its next call finds out", async () => {
    const { link } = listingLink([tools("a"), async () => Promise.reject(new Error("the MCP server process stopped"))]);
    const server = new McpServer("srv", "acp", async () => link);
    await server.start();
    server.recheck();
    await server.settled();
    expect([server.status, server.tools.map((t) => t.name)]).toEqual(["ready", ["a"]]);
  });

  it("fails a server that does not answer it, so that later turns do not wait for it", async () => {
    const { link, count } = listingLink([tools("a"), () => new Promise<never>(() => undefined)]);
    const server = new McpServer("srv", "acp", async () => link);
    await server.start();
    vi.useFakeTimers();
    server.recheck();
    await vi.advanceTimersByTimeAsync(CONNECT_TIMEOUT_MS);
    await server.settled();
    expect([server.status, server.cause]).toEqual(["failed", "no answer within 10 s"]);
    server.recheck();
    expect(count()).toBe(2);
  });
});
