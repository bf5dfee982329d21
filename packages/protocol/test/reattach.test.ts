import { describe, expect, it } from "vitest";
import { decodeFrame, reattach, ReconnectTracker, type ClientAnswer, type IncomingRequest, type ServiceResponse } from "../src/index.js";

/** Records the client's own requests and answers each from `answers` by method. */
function ports(answers: Record<string, (params: unknown) => ServiceResponse>) {
  const sent: Array<{ method: string; params: unknown }> = [];
  const written: ClientAnswer[] = [];
  const log = { debug: () => undefined, info: () => undefined, warn: () => undefined };
  return {
    sent,
    written,
    ports: {
      request: async (method: string, params: unknown) => {
        sent.push({ method, params });
        const answer = answers[method];
        return answer ? answer(params) : { kind: "error" as const, error: { code: -32601, message: "Method not found" } };
      },
      answer: (a: readonly ClientAnswer[]) => written.push(...a),
      log,
      cwd: "/fallback",
    },
  };
}

function send(t: ReconnectTracker, id: number, method: string, params: unknown, connectionId = "c1"): void {
  const message: IncomingRequest = { jsonrpc: "2.0", id, method, params };
  t.clientRequest(message, JSON.stringify(message));
  t.clientSent(id, connectionId);
}

function receive(t: ReconnectTracker, message: Record<string, unknown>): void {
  const decoded = decodeFrame(JSON.stringify({ jsonrpc: "2.0", ...message }));
  if (decoded.kind === "invalid") throw new Error("bad frame");
  t.fromService(decoded);
}

/** A tracker whose client initialized, created s1 in /work, saw seq 3, and had prompt 2 in flight when the socket dropped. */
function droppedMidPrompt(): ReconnectTracker {
  const t = new ReconnectTracker();
  t.connected("c1");
  send(t, 0, "initialize", { protocolVersion: 1 });
  receive(t, { id: 0, result: { protocolVersion: 1 } });
  send(t, 1, "session/new", { cwd: "/work", mcpServers: [] });
  receive(t, { id: 1, result: { sessionId: "s1" } });
  send(t, 2, "session/prompt", { sessionId: "s1", prompt: [] });
  receive(t, { method: "session/update", params: { sessionId: "s1", update: {}, _meta: { hermes: { seq: 3 } } } });
  t.disconnected();
  t.connected("c2");
  return t;
}

const resumeCapable = { kind: "result" as const, result: { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { resume: {} } } } };

describe("reattach", () => {
  it("replays initialize, then resumes each session after the last seq seen, with its setup", async () => {
    const t = droppedMidPrompt();
    const p = ports({
      initialize: () => resumeCapable,
      "session/resume": () => ({ kind: "result", result: { _meta: { hermes: { turn: { state: "running" } } } } }),
    });
    expect(await reattach(t, p.ports)).toEqual({ ok: true, sessions: 1, resend: [] });
    expect(p.sent).toEqual([
      { method: "initialize", params: { protocolVersion: 1 } },
      { method: "session/resume", params: { sessionId: "s1", cwd: "/work", mcpServers: [], _meta: { hermes: { afterSeq: 3 } } } },
    ]);
    expect(t.isPending(2)).toBe(true);
  });

  it("falls back to session/load when the service cannot resume", async () => {
    const t = droppedMidPrompt();
    const p = ports({
      initialize: () => ({ kind: "result", result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } }),
      "session/load": () => ({ kind: "result", result: {} }),
    });
    await reattach(t, p.ports);
    expect(p.sent.map((s) => s.method)).toEqual(["initialize", "session/load"]);
  });

  it("answers the prompt from the turn state when the idle session's last turn was it", async () => {
    const t = droppedMidPrompt();
    const idle = { state: "idle", lastStopReason: "end_turn", lastRequestId: 2, lastConnectionId: "c1" };
    const p = ports({ initialize: () => resumeCapable, "session/resume": () => ({ kind: "result", result: { _meta: { hermes: { turn: idle } } } }) });
    await reattach(t, p.ports);
    expect(p.written).toEqual([{ id: 2, result: { stopReason: "end_turn" } }]);
  });

  it("hands back a prompt the service never saw, to go out first on the new connection", async () => {
    const t = droppedMidPrompt();
    const p = ports({ initialize: () => resumeCapable, "session/resume": () => ({ kind: "result", result: { _meta: { hermes: { turn: { state: "idle" } } } } }) });
    const result = await reattach(t, p.ports);
    expect(result.resend.map((r) => r.id)).toEqual([2]);
  });

  it("fails the session's prompt when the service refuses to re-attach it", async () => {
    const t = droppedMidPrompt();
    const p = ports({ initialize: () => resumeCapable, "session/resume": () => ({ kind: "error", error: { code: -32002, message: "Resource not found" } }) });
    expect((await reattach(t, p.ports)).ok).toBe(true);
    expect(p.written).toEqual([{ id: 2, error: expect.objectContaining({ code: -32002, data: { reason: "reattach_failed", details: "Could not re-attach session s1 after reconnecting: Resource not found" } }) }]);
    expect(t.reattachTargets()).toEqual([]);
  });

  it("reports a lost answer as a failed re-attach, leaving the tracker for the next connection", async () => {
    const t = droppedMidPrompt();
    const p = ports({ initialize: () => resumeCapable, "session/resume": () => ({ kind: "lost", reason: "socket closed" }) });
    expect(await reattach(t, p.ports)).toEqual({ ok: false, reason: "session/resume for s1 got no answer (socket closed)", resend: [] });
    expect(t.reattachTargets().map((r) => r.sessionId)).toEqual(["s1"]);
  });

  it("does nothing before the client's own initialize was answered", async () => {
    const t = new ReconnectTracker();
    const p = ports({});
    expect(await reattach(t, p.ports)).toEqual({ ok: true, sessions: 0, resend: [] });
    expect(p.sent).toEqual([]);
  });
});
