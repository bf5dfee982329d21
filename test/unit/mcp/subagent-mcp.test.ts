import { describe, expect, it } from "vitest";
import { forwardedMcpTools, SUBAGENT_MCP_CALL, SUBAGENT_MCP_CANCEL, SubagentMcpCalls, type SubagentMcp } from "../../../src/mcp/subagent-mcp.js";
import type { ClientPort, ToolContext } from "../../../src/tools/tool.js";

/** A parent's MCP tools whose calls run until their signal aborts, keeping each signal. */
function waitingMcp() {
  const signals: AbortSignal[] = [];
  const mcp: SubagentMcp = {
    descriptors: () => [],
    call: (_name, _args, signal) => {
      signals.push(signal);
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true }));
    },
  };
  return { mcp, signals };
}

describe("SubagentMcpCalls", () => {
  it("cancels one sub-agent's call by its id, leaving its other calls and other sub-agents' alone", async () => {
    const { mcp, signals } = waitingMcp();
    const calls = new SubagentMcpCalls();
    const task = new AbortController().signal;
    const a = calls.handle(mcp, "sub-1", SUBAGENT_MCP_CALL, { name: "t", arguments: {}, callId: "c1" }, task);
    const b = calls.handle(mcp, "sub-1", SUBAGENT_MCP_CALL, { name: "t", arguments: {}, callId: "c2" }, task);
    const c = calls.handle(mcp, "sub-2", SUBAGENT_MCP_CALL, { name: "t", arguments: {}, callId: "c1" }, task);
    await calls.handle(mcp, "sub-1", SUBAGENT_MCP_CANCEL, { callId: "c1" }, task);
    await expect(a).rejects.toThrow("cancelled");
    expect(signals.map((s) => s.aborted)).toEqual([true, false, false]);
    void b.catch(() => undefined);
    void c.catch(() => undefined);
  });

  it("starts a call cancelled when its cancel came first, and cancels every call when the task ends", async () => {
    const { mcp, signals } = waitingMcp();
    const calls = new SubagentMcpCalls();
    const task = new AbortController();
    await calls.handle(mcp, "sub-1", SUBAGENT_MCP_CANCEL, { callId: "early" }, task.signal);
    const early = calls.handle(mcp, "sub-1", SUBAGENT_MCP_CALL, { name: "t", arguments: {}, callId: "early" }, task.signal);
    await expect(early).rejects.toMatchObject({ code: -32800 });
    expect(signals).toEqual([]);
    const later = calls.handle(mcp, "sub-1", SUBAGENT_MCP_CALL, { name: "t", arguments: {}, callId: "later" }, task.signal);
    task.abort();
    await expect(later).rejects.toThrow("cancelled");
    expect(signals.every((s) => s.aborted)).toBe(true);
  });
});

describe("forwardedMcpTools", () => {
  const descriptor = { name: "mcp__docs__echo", server: "docs", info: { name: "echo", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } } };
  /** The forwarding client port, keeping what it is asked. */
  function recordingClient() {
    const sent: { method: string; params: unknown }[] = [];
    const client: ClientPort = {
      capabilities: {},
      request: async (method, params) => {
        sent.push({ method, params });
        return method === SUBAGENT_MCP_CALL ? { content: [{ type: "text", text: "done" }] } : null;
      },
    };
    return { client, sent };
  }
  const run = (client: ClientPort, signal: AbortSignal) => forwardedMcpTools([descriptor], client, () => "call-1")[0]!.run({}, { signal } as ToolContext);

  it("sends the call to the parent with its id", async () => {
    const { client, sent } = recordingClient();
    const controller = new AbortController();
    await run(client, controller.signal);
    expect(sent).toEqual([{ method: SUBAGENT_MCP_CALL, params: { name: "mcp__docs__echo", arguments: {}, callId: "call-1" } }]);
  });

  it("refuses a call whose signal aborted already, sending nothing (no cancel could follow it)", async () => {
    const { client, sent } = recordingClient();
    const controller = new AbortController();
    controller.abort();
    await expect(run(client, controller.signal)).rejects.toMatchObject({ code: -32800 });
    expect(sent).toEqual([]);
  });
});
