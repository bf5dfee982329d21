import { describe, expect, it } from "vitest";
import { SUBAGENT_MCP_CALL, SUBAGENT_MCP_CANCEL, SubagentMcpCalls, type SubagentMcp } from "../../../src/mcp/subagent-mcp.js";

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
