// The parent's side of delegation in Node: fake sub-agent links stand in for
// the sub-agent Durable Objects, a fake store for the parent's record.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { UpstreamMessage } from "@hermes-edge/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { DelegationSettings } from "../../../src/config.js";
import { resultWithoutRun, type SubagentResult } from "../../../src/delegate/subagent-result.js";
import type { SubagentEvent, SubagentSpec, DelegatedTask } from "../../../src/delegate/subagent-spec.js";
import { Subagents, type SubagentLink } from "../../../src/delegate/subagents.js";
import type { SessionRecord } from "../../../src/session/session-record.js";
import type { UpdateLog } from "../../../src/session/update-log.js";
import { parentKey, UpstreamTunnels } from "../../../src/session/upstream-tunnels.js";
import { FakeClient } from "../tools/fakes.js";

const RECORD = {
  sessionId: "parent",
  tenant: "alpha",
  cwd: "/w",
  additionalDirectories: [],
  model: "mock-model",
  mode: "default",
  title: null,
  kind: "root",
  parentId: null,
  rootId: "parent",
  status: "active",
  createdAt: "",
  updatedAt: "",
  lastStopReason: null,
  reasoningEffort: "medium",
  allowRules: [],
  lastUsage: null,
  segment: 0,
  lineage: { currentId: "parent", rootId: "parent", parentId: null, kind: "root", compressionDepth: 0, previousId: null },
  interruptedPrompt: null,
} satisfies SessionRecord;

/** A child that finishes when told to, or when interrupted. */
class FakeChild implements SubagentLink {
  spec: SubagentSpec | null = null;
  interrupts = 0;
  #finish?: (status: SubagentResult["status"]) => void;
  readonly started: Promise<void>;
  #onStart!: () => void;

  constructor(readonly behaviour: "wait" | "throw" = "wait") {
    this.started = new Promise((r) => (this.#onStart = r));
  }

  runSubagentTask(spec: SubagentSpec): Promise<SubagentResult> {
    this.spec = spec;
    this.#onStart();
    if (this.behaviour === "throw") return Promise.reject(new Error("object exploded"));
    return new Promise((resolve) => {
      this.#finish = (status) => resolve(resultWithoutRun(spec.taskIndex, spec.subagentId, spec.model, status, `${status}!`));
    });
  }

  finish(status: SubagentResult["status"] = "completed"): void {
    this.#finish?.(status);
  }

  async interruptSubagentTask(): Promise<void> {
    this.interrupts += 1;
    this.#finish?.("interrupted");
  }

  readonly upstream: [string, UpstreamMessage][] = [];

  async upstreamMessage(from: string, params: UpstreamMessage): Promise<void> {
    this.upstream.push([from, params]);
  }
}

type HoldSubagent = (subagentId: string, signal: AbortSignal, onWait?: (max: number) => void) => Promise<() => Promise<void>>;

function setup(settings: Partial<DelegationSettings> = {}, record: Partial<SessionRecord> = {}, holdSubagent?: HoldSubagent, now: () => number = () => 0) {
  let current: SessionRecord = { ...RECORD, ...record };
  const log = {
    store: { record: () => current, updateRecord: (patch: Partial<SessionRecord>) => (current = { ...current, ...patch }) },
  } as unknown as UpdateLog;
  const children: FakeChild[] = [];
  const behaviours: ("wait" | "throw")[] = [];
  const indexUpdates: [string, unknown][] = [];
  let n = 0;
  const links = new Map<string, FakeChild>();
  const slotsReleased: number[] = [];
  const host = new Subagents(
    log,
    { update: async (id: string, patch: unknown) => void indexUpdates.push([id, patch]) } as never,
    { maxSpawnDepth: 1, maxConcurrentSubagents: 3, subagentApproval: "ask", ...settings },
    (id) => {
      let child = links.get(id);
      if (!child) {
        child = new FakeChild(behaviours.shift() ?? "wait");
        links.set(id, child);
        children.push(child);
      }
      return child;
    },
    { holdSubagent: holdSubagent ?? (async () => async () => void slotsReleased.push(1)) },
    () => `sub-${++n}`,
    now,
  );
  const client = new FakeClient({ fs: { readTextFile: true } });
  const emitted: SessionUpdate[] = [];
  const events: SubagentEvent[] = [];
  const controller = new AbortController();
  const spawn = (task: Partial<DelegatedTask> = {}, taskIndex = 0) =>
    host.spawn(
      { goal: `task ${taskIndex}`, role: "leaf", ...task },
      { taskIndex, parentToolCallId: "call_d", client, emit: (u) => emitted.push(u), signal: controller.signal, onEvent: (e) => events.push(e) },
    );
  return { host, children, behaviours, indexUpdates, client, emitted, events, controller, spawn, record: () => current };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("Subagents", () => {
  it("fails a task whose slot does not come within its time limit, instead of waiting for ever", async () => {
    // A tenant at its maxConcurrentSubagents limit: the slot waits until the signal says stop.
    const neverFree: HoldSubagent = (_id, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    const s = setup({}, {}, neverFree);
    const result = await s.spawn({ timeoutMs: 50 });
    expect(result.status).toBe("failed");
    expect(result.summary).toMatch(/No sub-agent slot became free within 50 ms: the tenant is at its maxConcurrentSubagents limit/);
    expect(s.children).toHaveLength(0);
  });

  it("takes the time the slot took off the time the task then runs", async () => {
    let clock = 1_000;
    const slowSlot: HoldSubagent = async () => {
      clock += 400; // the slot came 400 ms later
      return async () => undefined;
    };
    const s = setup({}, {}, slowSlot, () => clock);
    void s.spawn({ timeoutMs: 1_000 });
    await s.children[0]?.started;
    for (let i = 0; i < 5 && !s.children[0]; i++) await tick();
    expect(s.children[0]!.spec!.timeoutMs).toBe(600);
    s.children[0]!.finish();
  });

  it("records a task cancelled while it waits for a slot as interrupted", async () => {
    const neverFree: HoldSubagent = (_id, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    const s = setup({}, {}, neverFree);
    const run = s.spawn({ timeoutMs: 60_000 });
    await tick();
    s.controller.abort();
    expect((await run).status).toBe("interrupted");
  });

  it("runs at most the configured number of children; the rest wait and then run", async () => {
    const s = setup({ maxConcurrentSubagents: 2 });
    const runs = [0, 1, 2, 3, 4].map((i) => s.spawn({}, i));
    await tick();
    expect(s.children).toHaveLength(2);
    expect(s.host.state()).toMatchObject({ running: 2, waiting: 3 });
    s.children[0]!.finish();
    await tick();
    expect(s.children).toHaveLength(3);
    for (let i = 1; i < 5; i++) {
      s.children[i]!.finish();
      await tick();
    }
    const results = await Promise.all(runs);
    expect(results.map((r) => [r.task_index, r.status])).toEqual([0, 1, 2, 3, 4].map((i) => [i, "completed"]));
    expect(s.host.pool.peak).toBe(2);
  });

  it("sends the child the parent's model, mode, cwd, lineage, depth and the editor's capabilities", async () => {
    const s = setup({}, { mode: "accept_edits", model: "mock-model-large" });
    const run = s.spawn({ goal: "Find the bug", context: "in parser.ts", timeoutMs: 500 });
    await s.children[0]?.started;
    await tick();
    const spec = s.children[0]!.spec!;
    expect(spec).toMatchObject({
      tenant: "alpha",
      parentSessionId: "parent",
      parentToolCallId: "call_d",
      subagentId: "sub-1",
      goal: "Find the bug",
      context: "in parser.ts",
      role: "leaf",
      depth: 1,
      maxModelCalls: 50,
      timeoutMs: 500,
      model: "mock-model-large",
      mode: "accept_edits",
      cwd: "/w",
      rootId: "parent",
      parentLineage: RECORD.lineage,
      clientCapabilities: { fs: { readTextFile: true } },
      label: "sub-agent 1: Find the bug",
      approval: "ask",
    });
    s.children[0]!.finish();
    await run;
  });

  it("passes HERMES_SUBAGENT_APPROVAL=deny on to the child", async () => {
    const s = setup({ subagentApproval: "deny" });
    const run = s.spawn();
    await tick();
    expect(s.children[0]!.spec!.approval).toBe("deny");
    s.children[0]!.finish();
    await run;
  });

  it("reports queued, started and finished for each task", async () => {
    const s = setup();
    const run = s.spawn();
    await tick();
    s.children[0]!.finish();
    const result = await run;
    expect(s.events.map((e) => e.type)).toEqual(["queued", "started", "finished"]);
    expect(s.events.at(-1)).toEqual({ type: "finished", subagentId: "sub-1", result });
  });

  it("says on the task's line when the tenant's limit, not the session's pool, holds it", async () => {
    const tenantFull: HoldSubagent = async (_id, _signal, onWait) => {
      onWait?.(6);
      return async () => undefined;
    };
    const s = setup({}, {}, tenantFull);
    const run = s.spawn();
    for (let i = 0; i < 5 && !s.children[0]; i++) await tick();
    s.children[0]!.finish();
    await run;
    expect(s.events.map((e) => e.type)).toEqual(["queued", "queued", "started", "finished"]);
    expect(s.events[1]).toEqual({ type: "queued", subagentId: "sub-1", tenantLimit: 6 });
  });

  it("a child whose object fails becomes a failed result and its siblings finish", async () => {
    const s = setup();
    s.behaviours.push("wait", "throw", "wait");
    const runs = [0, 1, 2].map((i) => s.spawn({}, i));
    await tick();
    s.children[0]!.finish();
    s.children[2]!.finish();
    const results = await Promise.all(runs);
    expect(results.map((r) => r.status)).toEqual(["completed", "failed", "completed"]);
    expect(results[1]!.summary).toMatch(/could not be reached: object exploded/);
    expect(s.indexUpdates).toEqual([["sub-2", { endReason: "failed", updatedAt: 0 }]]);
  });

  it("cancelling the parent interrupts running children and drops waiting ones", async () => {
    const s = setup({ maxConcurrentSubagents: 1 });
    const runs = [0, 1].map((i) => s.spawn({}, i));
    await tick();
    s.controller.abort();
    const results = await Promise.all(runs);
    expect(results.map((r) => r.status)).toEqual(["interrupted", "interrupted"]);
    expect(s.children).toHaveLength(1);
    expect(s.children[0]!.interrupts).toBe(1);
    expect(results[1]!.summary).toBe("Interrupted before it started.");
  });

  it("interrupts one child by id and leaves the others running", async () => {
    const s = setup();
    const runs = [0, 1].map((i) => s.spawn({}, i));
    await tick();
    expect(s.host.control({ action: "interrupt", subagentId: "sub-1" })).toMatchObject({ interrupted: "sub-1" });
    expect(() => s.host.control({ action: "interrupt", subagentId: "nope" })).toThrow(/Resource not found/);
    s.children[1]!.finish();
    expect((await Promise.all(runs)).map((r) => r.status)).toEqual(["interrupted", "completed"]);
    expect(() => s.host.control({ action: "interrupt", subagentId: "sub-1" })).toThrow(/Resource not found/);
  });

  it("pause holds new spawns (and is remembered with the session); resume releases them", async () => {
    const s = setup();
    expect(s.host.control({ action: "pause" })).toMatchObject({ paused: true });
    expect(s.record().delegation).toEqual({ spawnPaused: true });
    const run = s.spawn();
    await tick();
    expect(s.children).toHaveLength(0);
    s.host.control({ action: "resume" });
    await tick();
    expect(s.children).toHaveLength(1);
    s.children[0]!.finish();
    await run;
    expect(s.record().delegation).toMatchObject({ spawnPaused: false, running: [] });
  });

  it("forwards a child's editor request in the parent's name, and refuses other methods", async () => {
    const s = setup();
    s.client.on("fs/read_text_file", (p) => ({ content: `read ${String(p.path)}` }));
    const run = s.spawn();
    await tick();
    const outcome = await s.host.forward("sub-1", { method: "fs/read_text_file", params: { sessionId: "sub-1", path: "/w/a" }, cancellable: true, timeoutMs: 9 });
    expect(outcome).toEqual({ ok: true, result: { content: "read /w/a" } });
    expect(s.client.requests[0]!.params).toEqual({ sessionId: "parent", path: "/w/a" });
    expect(s.client.requests[0]!.options).toMatchObject({ timeoutMs: 9, signal: expect.any(AbortSignal) });
    expect(await s.host.forward("sub-1", { method: "session/prompt", params: {}, cancellable: false })).toMatchObject({ ok: false, error: { kind: "tool" } });
    expect(await s.host.forward("sub-9", { method: "fs/read_text_file", params: {}, cancellable: false })).toMatchObject({ ok: false });
    s.children[0]!.finish();
    await run;
  });

  it("relays a child's tool calls into the parent's turn and reports its current tool", async () => {
    const s = setup();
    const run = s.spawn();
    await tick();
    const frames = [
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "thinking" } },
      { sessionUpdate: "tool_call", toolCallId: "c0", title: "Read /w/a", kind: "read", status: "pending" },
      { sessionUpdate: "tool_call_update", toolCallId: "c0", status: "completed" },
    ].map((u) => JSON.stringify(u));
    expect(s.host.relay("sub-1", frames)).toBe(true);
    expect(s.emitted.map((u) => [u.sessionUpdate, (u as { toolCallId: string }).toolCallId])).toEqual([
      ["tool_call", "sub-1/c0"],
      ["tool_call_update", "sub-1/c0"],
    ]);
    expect(s.events).toContainEqual({ type: "tool", subagentId: "sub-1", title: "Read /w/a" });
    s.children[0]!.finish();
    await run;
    expect(s.host.relay("sub-1", frames)).toBe(false);
  });

  it("may delegate from a root but not from a leaf child at the default depth", () => {
    expect(setup().host.canDelegate()).toBe(true);
    expect(setup({ maxSpawnDepth: 0 }).host.canDelegate()).toBe(false);
    expect(setup({}, { kind: "subagent", delegation: { depth: 1, role: "orchestrator" } }).host.canDelegate()).toBe(false);
    expect(setup({ maxSpawnDepth: 2 }, { kind: "subagent", delegation: { depth: 1, role: "orchestrator" } }).host.canDelegate()).toBe(true);
  });

  it("remembers which sub-agents run, so a restarted parent stops them and records them as interrupted", async () => {
    const s = setup();
    const runs = [0, 1].map((i) => s.spawn({}, i));
    await tick();
    expect(s.record().delegation?.running).toEqual(["sub-1", "sub-2"]);
    // A new parent object over the same record: what a restart leaves.
    const restarted = setup({}, s.record());
    const ids = await restarted.host.recoverInterrupted();
    expect(ids).toEqual(["sub-1", "sub-2"]);
    expect(restarted.children.map((c) => c.interrupts)).toEqual([1, 1]);
    expect(restarted.indexUpdates).toEqual([
      ["sub-1", { endReason: "interrupted", updatedAt: 0 }],
      ["sub-2", { endReason: "interrupted", updatedAt: 0 }],
    ]);
    expect(restarted.record().delegation?.running).toEqual([]);
    s.children.forEach((c) => c.finish());
    await Promise.all(runs);
  });

  it("after a restart whose turn resumes, the call run again waits for the same sub-agents and takes a delivered result without asking again", async () => {
    const s = setup();
    const runs = [0, 1].map((i) => s.spawn({}, i));
    await tick();
    s.children[1]!.finish();
    await runs[1];
    // The parent restarts: sub-1 still works, sub-2 delivered its result before.
    const restarted = setup({}, s.record());
    expect(restarted.host.adopt()).toEqual(["sub-1"]);
    // Its updates meanwhile are held, not refused (a refusal would stop the sub-agent).
    const frame = JSON.stringify({ sessionUpdate: "tool_call", toolCallId: "c0", title: "Read /w/a", kind: "read", status: "pending" });
    expect(restarted.host.relay("sub-1", [frame])).toBe(true);
    expect(restarted.emitted).toEqual([]);
    const again = [0, 1].map((i) => restarted.spawn({}, i));
    await tick();
    // Only sub-1 is asked again, under its own id; the held update goes out as the parent's.
    expect(restarted.children).toHaveLength(1);
    expect(restarted.children[0]!.spec?.subagentId).toBe("sub-1");
    expect(restarted.emitted.map((u) => (u as { toolCallId: string }).toolCallId)).toEqual(["sub-1/c0"]);
    restarted.children[0]!.finish();
    const results = await Promise.all(again);
    expect(results.map((r) => [r.subagent_id, r.status])).toEqual([
      ["sub-1", "completed"],
      ["sub-2", "completed"],
    ]);
    expect(restarted.children[0]!.interrupts).toBe(0);
    // A new turn forgets the ledger: its calls start new sub-agents.
    restarted.host.turnBegan();
    expect(restarted.record().delegation?.ledger).toBeUndefined();
    s.children[0]!.finish();
    await runs[0];
  });

  it("stops an adopted sub-agent that no resumed call waited for once a new turn begins", async () => {
    const s = setup();
    void s.spawn();
    await tick();
    const restarted = setup({}, s.record());
    restarted.host.adopt();
    restarted.host.turnBegan();
    await tick();
    expect(restarted.children.map((c) => c.interrupts)).toEqual([1]);
    expect(restarted.indexUpdates).toEqual([["sub-1", { endReason: "interrupted", updatedAt: 0 }]]);
    expect(restarted.record().delegation?.running).toEqual([]);
    s.children[0]!.finish();
  });

  describe("when a sub-agent never answers", () => {
    afterEach(() => vi.useRealTimers());

    it("gives up after the task's limit plus a grace period, interrupts it and reports it failed", async () => {
      vi.useFakeTimers();
      const s = setup();
      const run = s.spawn({ timeoutMs: 1_000 });
      await vi.advanceTimersByTimeAsync(30_999);
      expect(s.events.map((e) => e.type)).toEqual(["queued", "started"]);
      await vi.advanceTimersByTimeAsync(2);
      const result = await run;
      expect(result.status).toBe("failed");
      expect(result.summary).toMatch(/could not be reached: no answer within 31 s/);
      expect(s.children[0]!.interrupts).toBe(1);
    });
  });

  it("fails a task at once whose model the session does not reach, naming the ones it does", async () => {
    const s = setup();
    s.host.models = () => ["mock-model", "acp:remote"];
    const result = await s.spawn({ model: "acp:elsewhere" });
    expect(result).toMatchObject({ status: "failed", summary: 'The model "acp:elsewhere" is not available to sub-agents here; use one of: mock-model, acp:remote.' });
    expect(s.children).toHaveLength(0);
    expect(s.events.map((e) => e.type)).toEqual(["finished"]);
    const fine = s.spawn({ model: "acp:remote" });
    await tick();
    expect(s.children[0]!.spec!.model).toBe("acp:remote");
    s.children[0]!.finish();
    await fine;
  });

  it("forwards a running sub-agent's tunnel messages to the proxy-hosted upstream its parent reaches, and relays the answers back to it", async () => {
    const s = setup();
    const sent: string[] = [];
    const caps = { _meta: { hermes: { upstreams: [{ id: "fake", name: "Fake" }] } } };
    s.host.tunnels = new UpstreamTunnels({ attached: () => [["c1", caps]], send: (_c: string, frame: string) => void sent.push(frame), store: { record: () => s.record() } } as unknown as UpdateLog);
    const request = { upstreamId: "fake", message: { jsonrpc: "2.0", id: "sub-1~1~0", method: "initialize", params: {} } };
    expect(s.host.forwardUpstream("sub-1", request)).toBe(false); // not running
    const run = s.spawn({ model: "acp:fake" });
    await tick();
    expect(s.children[0]!.spec!.upstreams).toEqual([{ id: "fake", name: "Fake" }]);
    // Bad input is refused without sending anything.
    for (const bad of [null, "x", {}, { upstreamId: "fake" }, { upstreamId: "fake", message: { id: 1 } }, { upstreamId: "no spaces allowed", message: { jsonrpc: "2.0" } }, { upstreamId: "fake", message: [] }]) {
      expect(s.host.forwardUpstream("sub-1", bad)).toBe(false);
    }
    expect(s.host.forwardUpstream("sub-1", { ...request, upstreamId: "elsewhere" })).toBe(false);
    expect(sent).toEqual([]);
    expect(s.host.forwardUpstream("sub-1", request)).toBe(true);
    expect(sent.map((f) => JSON.parse(f).params)).toEqual([request]);
    s.host.tunnels.receive("c1", { upstreamId: "fake", message: { jsonrpc: "2.0", id: "sub-1~1~0", result: { protocolVersion: 1 } } });
    await tick();
    expect(s.children[0]!.upstream).toEqual([[parentKey("parent"), { upstreamId: "fake", message: { jsonrpc: "2.0", id: "sub-1~1~0", result: { protocolVersion: 1 } } }]]);
    s.children[0]!.finish();
    await run;
    expect(s.host.forwardUpstream("sub-1", request)).toBe(false);
  });
});
