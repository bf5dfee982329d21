// The tool calls of one model message: which run together (the pure plan),
// and what the editor and the history see when they run (the executor).
import type { SessionUpdate, ToolKind } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelToolCall } from "../../../src/agent/model-provider.js";
import { MAX_PARALLEL_TOOL_CALLS, NOT_RUN_CANCELLED, planToolSteps, runToolBatch, stepClassOf, type StepClass } from "../../../src/agent/tool-batch.js";
import { mcpTool } from "../../../src/mcp/mcp-tool.js";
import { ToolError, type AnyTool, type Tool, type ToolContext } from "../../../src/tools/tool.js";
import { NO_D1 } from "../tools/fakes.js";

/** A tool of `kind` that waits until `release(id)` (or its signal) and logs when each call starts and ends. */
function gatedTool(name: string, kind: ToolKind, log: string[], gates: Map<string, () => void>): Tool<{ n?: number }> {
  return {
    name,
    description: name,
    kind,
    inputSchema: z.object({ n: z.number().optional() }),
    title: () => name,
    run: (_input, ctx) =>
      new Promise((resolve, reject) => {
        log.push(`start ${ctx.toolCallId}`);
        ctx.signal.addEventListener("abort", () => reject(new ToolError("stopped")), { once: true });
        gates.set(ctx.toolCallId, () => {
          log.push(`end ${ctx.toolCallId}`);
          resolve({ output: `out ${ctx.toolCallId}` });
        });
      }),
  };
}

function harness() {
  const updates: SessionUpdate[] = [];
  const delivered: Array<[string, string]> = [];
  const started: string[] = [];
  const deps = {
    emit: (update: SessionUpdate) => void updates.push(update),
    toolContext: (toolCallId: string, signal: AbortSignal): ToolContext => ({
      sessionId: "s",
      tenant: "t",
      db: NO_D1,
      cwd: "/work",
      additionalDirectories: [],
      toolCallId,
      signal,
      client: { capabilities: {}, request: () => Promise.reject(new Error("no editor")) },
      emit: (update) => void updates.push(update),
    }),
  };
  const hooks = {
    started: (call: ModelToolCall) => void started.push(call.id),
    ended: () => undefined,
    deliver: (call: ModelToolCall, output: string) => void delivered.push([call.id, output]),
  };
  return { updates, delivered, started, deps, hooks };
}

const call = (id: string, name: string, args = "{}"): ModelToolCall => ({ id, name, arguments: args });
const statusOf = (updates: SessionUpdate[]) =>
  updates.map((u) => ["toolCallId" in u ? u.toolCallId : null, u.sessionUpdate === "tool_call" ? "announced" : "status" in u ? u.status : null]);

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 2));
}

describe("planToolSteps", () => {
  const plan = (...classes: StepClass[]) => planToolSteps(classes);

  it("runs every read of a message together, first, and the rest one by one in the model's order", () => {
    expect(plan("read", "serial", "read", "serial", "read")).toEqual([[0, 2, 4], [1], [3]]);
  });

  it("keeps edits and commands in order with no read step when there are no reads", () => {
    expect(plan("serial", "serial", "serial")).toEqual([[0], [1], [2]]);
    expect(plan()).toEqual([]);
  });

  it("merges adjacent delegations into one step but never across an edit or a command", () => {
    expect(plan("delegate", "delegate")).toEqual([[0, 1]]);
    expect(plan("delegate", "read", "delegate", "serial", "delegate")).toEqual([[1], [0, 2], [3], [4]]);
  });
});

describe("stepClassOf", () => {
  const tools = (kinds: ToolKind[]): AnyTool[] => kinds.map((kind) => gatedTool(`t_${kind}`, kind, [], new Map()));

  it("counts read, search, fetch and think (and an unknown tool, which fails at once) as reads, every other kind as serial", () => {
    const all = tools(["read", "search", "fetch", "think", "edit", "delete", "move", "execute", "switch_mode", "other"]);
    expect(all.map((t) => stepClassOf(t, all))).toEqual(["read", "read", "read", "read", "serial", "serial", "serial", "serial", "serial", "serial"]);
    expect(stepClassOf({ name: "nope" }, all)).toBe("read");
  });

  it("treats an MCP tool as a read only when the server annotates it read-only", () => {
    const server = { name: "docs", call: () => Promise.reject(new Error("unused")) };
    const info = (annotations: object) => ({ name: "lookup", inputSchema: { type: "object" as const }, annotations });
    const readOnly = mcpTool(server, info({ readOnlyHint: true }), "mcp__docs__a");
    const openWorld = mcpTool(server, info({ readOnlyHint: true, openWorldHint: true }), "mcp__docs__b");
    const plain = mcpTool(server, info({}), "mcp__docs__c");
    const all = [readOnly, openWorld, plain];
    expect(all.map((t) => stepClassOf(t, all))).toEqual(["read", "read", "serial"]);
  });

  it("gives delegate_task its own class", () => {
    const delegate = { ...gatedTool("delegate_task", "execute", [], new Map()) };
    expect(stepClassOf(delegate, [delegate])).toBe("delegate");
  });
});

describe("runToolBatch", () => {
  it("starts all reads at once, announces them in the model's order, runs the edit after them, and delivers results in the model's order", async () => {
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const tools = [gatedTool("read", "read", log, gates), gatedTool("write", "edit", log, gates)];
    const h = harness();
    const calls = [call("w1", "write"), call("r1", "read"), call("r2", "read")];
    const done = runToolBatch(calls, tools, h.deps, new AbortController().signal, h.hooks);

    await until(() => gates.size === 2);
    expect(log).toEqual(["start r1", "start r2"]);
    expect(statusOf(h.updates)).toEqual([
      ["r1", "announced"],
      ["r1", "in_progress"],
      ["r2", "announced"],
      ["r2", "in_progress"],
    ]);
    gates.get("r2")!();
    gates.get("r1")!();
    await until(() => gates.size === 3);
    // The edit waited for both reads; nothing is delivered before it, since it comes first in the model's order.
    expect(log).toEqual(["start r1", "start r2", "end r2", "end r1", "start w1"]);
    expect(h.delivered).toEqual([]);
    gates.get("w1")!();
    await done;
    expect(h.started).toEqual(["r1", "r2", "w1"]);
    expect(h.delivered).toEqual([
      ["w1", "out w1"],
      ["r1", "out r1"],
      ["r2", "out r2"],
    ]);
    // Each call's own updates keep their order: announced, in progress, completed.
    for (const id of ["w1", "r1", "r2"]) {
      expect(statusOf(h.updates).filter(([i]) => i === id)).toEqual([
        [id, "announced"],
        [id, "in_progress"],
        [id, "completed"],
      ]);
    }
  });

  it("runs the edits of a message one at a time in the model's order", async () => {
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const tools = [gatedTool("write", "edit", log, gates), gatedTool("run", "execute", log, gates)];
    const h = harness();
    const done = runToolBatch([call("a", "write"), call("b", "run"), call("c", "write")], tools, h.deps, new AbortController().signal, h.hooks);
    for (const id of ["a", "b", "c"]) {
      await until(() => gates.has(id));
      expect(gates.size).toBe(["a", "b", "c"].indexOf(id) + 1);
      gates.get(id)!();
    }
    await done;
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(h.delivered.map(([id]) => id)).toEqual(["a", "b", "c"]);
  });

  it("runs adjacent delegate_task calls together, after the reads and before a later edit", async () => {
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const tools = [gatedTool("delegate_task", "execute", log, gates), gatedTool("write", "edit", log, gates), gatedTool("read", "read", log, gates)];
    const h = harness();
    const calls = [call("d1", "delegate_task"), call("d2", "delegate_task"), call("w", "write"), call("r", "read")];
    const done = runToolBatch(calls, tools, h.deps, new AbortController().signal, h.hooks);
    await until(() => gates.has("r"));
    gates.get("r")!();
    await until(() => gates.has("d2"));
    expect(log).toEqual(["start r", "end r", "start d1", "start d2"]);
    gates.get("d2")!();
    gates.get("d1")!();
    await until(() => gates.has("w"));
    gates.get("w")!();
    await done;
    expect(log).toEqual(["start r", "end r", "start d1", "start d2", "end d2", "end d1", "start w", "end w"]);
    expect(h.delivered.map(([id]) => id)).toEqual(["d1", "d2", "w", "r"]);
  });

  it("runs at most MAX_PARALLEL_TOOL_CALLS reads at once, starting the rest as slots free up", async () => {
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const tools = [gatedTool("read", "read", log, gates)];
    const h = harness();
    const calls = Array.from({ length: MAX_PARALLEL_TOOL_CALLS + 2 }, (_, i) => call(`r${i}`, "read"));
    const done = runToolBatch(calls, tools, h.deps, new AbortController().signal, h.hooks);
    await until(() => gates.size === MAX_PARALLEL_TOOL_CALLS);
    await new Promise((r) => setTimeout(r, 10));
    expect(gates.size).toBe(MAX_PARALLEL_TOOL_CALLS);
    gates.get("r0")!();
    await until(() => gates.size === MAX_PARALLEL_TOOL_CALLS + 1);
    for (const [id, release] of gates) if (id !== "r0") release();
    await until(() => gates.size === calls.length);
    gates.get(`r${calls.length - 1}`)!();
    await done;
    expect(h.delivered.map(([id]) => id)).toEqual(calls.map((c) => c.id));
  });

  it("on cancel during a parallel batch gives every running call a final status and answers the calls not started", async () => {
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const tools = [gatedTool("read", "read", log, gates), gatedTool("write", "edit", log, gates)];
    const h = harness();
    const controller = new AbortController();
    const calls = [call("r1", "read"), call("w1", "write"), call("r2", "read")];
    const done = runToolBatch(calls, tools, h.deps, controller.signal, h.hooks);
    await until(() => gates.size === 2);
    gates.get("r1")!();
    await until(() => h.delivered.length === 1);
    controller.abort();
    await done;

    expect(log).toEqual(["start r1", "start r2", "end r1"]);
    expect(h.delivered).toEqual([
      ["r1", "out r1"],
      ["w1", NOT_RUN_CANCELLED],
      ["r2", "Error: Cancelled by the user."],
    ]);
    // Nothing is left pending or in progress: every announced call ended; the edit was never shown.
    const last = new Map(statusOf(h.updates).map(([id, status]) => [id, status]));
    expect(Object.fromEntries(last)).toEqual({ r1: "completed", r2: "failed" });
  });

  it("lets one call fail, by its tool or by a throw outside it, without breaking the others", async () => {
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const failing: Tool<Record<string, never>> = {
      name: "bad",
      description: "fails",
      kind: "read",
      inputSchema: z.object({}),
      title: () => "bad",
      run: () => Promise.reject(new Error("disk on fire")),
    };
    const brokenTitle: Tool<Record<string, never>> = { ...failing, name: "untitled", title: () => { throw new Error("no title"); } };
    const tools = [gatedTool("read", "read", log, gates), failing, brokenTitle];
    const h = harness();
    const done = runToolBatch([call("b", "bad"), call("u", "untitled"), call("r", "read")], tools, h.deps, new AbortController().signal, h.hooks);
    await until(() => gates.size === 1);
    gates.get("r")!();
    await done;
    expect(h.delivered).toEqual([
      ["b", "Error: bad failed unexpectedly: disk on fire"],
      ["u", "Error: untitled failed unexpectedly: no title"],
      ["r", "out r"],
    ]);
    expect(h.updates.filter((u) => "toolCallId" in u && u.toolCallId === "u")).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "u",
        title: "untitled",
        kind: "other",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: "untitled failed unexpectedly: no title" } }],
      },
    ]);
  });
});
