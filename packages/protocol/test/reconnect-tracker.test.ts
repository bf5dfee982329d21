import { describe, expect, it } from "vitest";
import { decodeFrame, ReconnectTracker, type Frame, type IncomingRequest } from "../src/index.js";

function frame(message: Record<string, unknown>): Frame {
  const decoded = decodeFrame(JSON.stringify({ jsonrpc: "2.0", ...message }));
  if (decoded.kind === "invalid") throw new Error(decoded.error.message);
  return decoded;
}

/** A client request: its message and the frame text it goes out as. */
function request(id: number | string, method: string, params: Record<string, unknown>): [IncomingRequest, string] {
  const message: IncomingRequest = { jsonrpc: "2.0", id, method, params };
  return [message, JSON.stringify(message)];
}

const update = (sessionId: string, seq: number) =>
  frame({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk" }, _meta: { hermes: { seq } } } });

const turnEnded = (sessionId: string, seq: number, requestId: number | string, connectionId: string, stopReason = "end_turn") =>
  frame({ method: "_hermes/turn_ended", params: { sessionId, stopReason, seq, _meta: { hermes: { requestId, connectionId } } } });

/** A tracker with one initialized editor, session "s1" created on connection c1. */
function withSession() {
  const t = new ReconnectTracker();
  t.connected("c1");
  t.clientRequest(...request(0, "initialize", { protocolVersion: 1 }));
  t.clientSent(0, "c1");
  t.fromService(frame({ id: 0, result: { protocolVersion: 1 } }));
  t.clientRequest(...request(1, "session/new", { cwd: "/work", mcpServers: [] }));
  t.clientSent(1, "c1");
  t.fromService(frame({ id: 1, result: { sessionId: "s1" } }));
  return t;
}

const userChunk = (sessionId: string, seq: number, connectionId: string) =>
  frame({ method: "session/update", params: { sessionId, update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } }, _meta: { hermes: { seq, connectionId } } } });

describe("ReconnectTracker: the client's own prompts in a replay", () => {
  it("holds back a replayed user_message_chunk of its own prompt, but not another client's, nor its own in a load it asked for", () => {
    const t = withSession();
    expect(t.fromService(userChunk("s1", 1, "c1"))).toMatchObject({ forward: false, dropped: "session/update seq 1 is the client's own prompt" });
    expect(t.fromService(userChunk("s1", 2, "zed-2")).forward).toBe(true);
    t.clientRequest(...request(7, "session/load", { sessionId: "s1", cwd: "/work", mcpServers: [] }));
    t.clientSent(7, "c1");
    expect(t.fromService(userChunk("s1", 1, "c1")).forward).toBe(true); // the editor rebuilds its transcript
    t.fromService(frame({ id: 7, result: {} }));
    expect(t.fromService(userChunk("s1", 3, "c1")).forward).toBe(false);
  });
});

describe("ReconnectTracker: duplicates", () => {
  it("forwards increasing seqs and holds back any seq at or below the last forwarded", () => {
    const t = withSession();
    expect([1, 2, 3, 2, 3, 4, 1].map((seq) => t.fromService(update("s1", seq)).forward)).toEqual([true, true, true, false, false, true, false]);
  });

  it("keeps seqs per session", () => {
    const t = withSession();
    expect(t.fromService(update("s1", 5)).forward).toBe(true);
    expect(t.fromService(update("s2", 1)).forward).toBe(true);
  });

  it("forwards updates without a seq untouched", () => {
    const t = withSession();
    const noSeq = frame({ method: "session/update", params: { sessionId: "s1", update: {} } });
    expect(t.fromService(noSeq).forward).toBe(true);
    expect(t.fromService(noSeq).forward).toBe(true);
  });

  it("lets the full history through again when the editor itself loads the session", () => {
    const t = withSession();
    t.fromService(update("s1", 1));
    t.fromService(update("s1", 2));
    t.clientRequest(...request(2, "session/load", { sessionId: "s1", cwd: "/work", mcpServers: [] }));
    t.clientSent(2, "c1");
    expect(t.fromService(update("s1", 1)).forward).toBe(true);
    expect(t.fromService(update("s1", 2)).forward).toBe(true);
  });

  it("continues, rather than restarts, a full-history load that was re-sent after a drop", () => {
    const t = withSession();
    t.clientRequest(...request(2, "session/load", { sessionId: "s1", cwd: "/work", mcpServers: [] }));
    t.clientSent(2, "c1");
    t.fromService(update("s1", 1));
    t.fromService(update("s1", 2));
    expect(t.disconnected().resend.map((r) => r.id)).toEqual([2]);
    t.connected("c2");
    t.clientSent(2, "c2");
    expect([1, 2, 3].map((seq) => t.fromService(update("s1", seq)).forward)).toEqual([false, false, true]);
  });

  it("drops a second response to the same request", () => {
    const t = withSession();
    t.clientRequest(...request(7, "_x/ping", {}));
    t.clientSent(7, "c1");
    expect(t.fromService(frame({ id: 7, result: {} })).forward).toBe(true);
    expect(t.fromService(frame({ id: 7, result: {} })).forward).toBe(false);
  });
});

describe("ReconnectTracker: the service's requests to the client", () => {
  const permission = (id: string) => frame({ id, method: "session/request_permission", params: { sessionId: "s1", toolCall: { toolCallId: "t" }, options: [] } });

  it("forwards them all: holding back the service's repeats is ServiceRequests' (the client knows when its answers went out)", () => {
    const t = withSession();
    expect(t.fromService(permission("hermes:s1:1")).forward).toBe(true);
    t.disconnected();
    t.connected("c2");
    expect(t.fromService(permission("hermes:s1:1")).forward).toBe(true);
  });
});

describe("ReconnectTracker: re-attach", () => {
  it("re-attaches a session made by session/fork, with the fork's setup", () => {
    const t = withSession();
    t.clientRequest(...request(2, "session/fork", { sessionId: "s1", cwd: "/fork", mcpServers: [] }));
    t.clientSent(2, "c1");
    t.fromService(frame({ id: 2, result: { sessionId: "s1-fork" } }));
    t.fromService(update("s1-fork", 3));
    expect(t.reattachTargets()).toEqual([
      { sessionId: "s1", afterSeq: 0, setup: { cwd: "/work", mcpServers: [] } },
      { sessionId: "s1-fork", afterSeq: 3, setup: { sessionId: "s1", cwd: "/fork", mcpServers: [] } },
    ]);
  });

  it("re-attaches created sessions after the last seq forwarded, with their setup", () => {
    const t = withSession();
    t.fromService(update("s1", 1));
    t.fromService(update("s1", 4));
    expect(t.reattachTargets()).toEqual([{ sessionId: "s1", afterSeq: 4, setup: { cwd: "/work", mcpServers: [] } }]);
    expect(t.initializeToReplay).toEqual({ params: { protocolVersion: 1 } });
  });

  it("does not re-attach a session whose creation failed or that was closed", () => {
    const t = withSession();
    t.clientRequest(...request(2, "session/load", { sessionId: "gone", cwd: "/w", mcpServers: [] }));
    t.clientSent(2, "c1");
    t.fromService(frame({ id: 2, error: { code: -32002, message: "not found" } }));
    t.clientRequest(...request(3, "session/close", { sessionId: "s1" }));
    t.clientSent(3, "c1");
    t.fromService(frame({ id: 3, result: {} }));
    expect(t.reattachTargets()).toEqual([]);
  });

  it("re-sends harmless requests that were in flight and fails the others", () => {
    const t = withSession();
    t.clientRequest(...request(2, "session/set_mode", { sessionId: "s1", modeId: "ask" }));
    t.clientSent(2, "c1");
    t.clientRequest(...request(3, "session/new", { cwd: "/w", mcpServers: [] }));
    t.clientSent(3, "c1");
    t.clientRequest(...request(4, "session/prompt", { sessionId: "s1", prompt: [] }));
    t.clientSent(4, "c1");
    const { answers, resend } = t.disconnected();
    expect(resend.map((r) => r.id)).toEqual([2]);
    expect(answers).toEqual([expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -32603 }) })]);
    expect(t.isPending(4)).toBe(true);
  });
});

describe("ReconnectTracker: pending prompts", () => {
  function promptSentThenDropped() {
    const t = withSession();
    t.clientRequest(...request(5, "session/prompt", { sessionId: "s1", prompt: [] }));
    t.clientSent(5, "c1");
    t.fromService(update("s1", 1));
    expect(t.disconnected().answers).toEqual([]);
    t.connected("c2");
    return t;
  }

  it("answers a prompt from an earlier connection when its turn_ended arrives", () => {
    const t = promptSentThenDropped();
    const verdict = t.fromService(turnEnded("s1", 2, 5, "c1"));
    expect(verdict.forward).toBe(true);
    expect(verdict.answers).toEqual([{ id: 5, result: { stopReason: "end_turn" } }]);
    expect(t.isPending(5)).toBe(false);
  });

  it("answers with the turn's JSON-RPC error when turn_ended reports a failed turn", () => {
    const t = promptSentThenDropped();
    const failed = frame({
      method: "_hermes/turn_ended",
      params: { sessionId: "s1", stopReason: "end_turn", seq: 2, error: { code: -32603, message: "model failed" }, _meta: { hermes: { requestId: 5, connectionId: "c1" } } },
    });
    expect(t.fromService(failed).answers).toEqual([{ id: 5, error: { code: -32603, message: "model failed" } }]);
  });

  it("ignores a turn_ended without a request id (a turn no client request started)", () => {
    const t = promptSentThenDropped();
    const orphan = frame({ method: "_hermes/turn_ended", params: { sessionId: "s1", stopReason: "end_turn", seq: 2, _meta: { hermes: { requestId: null, connectionId: null } } } });
    const verdict = t.fromService(orphan);
    expect([verdict.forward, verdict.answers]).toEqual([true, []]);
    expect(t.isPending(5)).toBe(true);
  });

  it("tells a browser's prompts from another client's once initialize named its connection (no Acp-Connection-Id header there)", () => {
    const t = new ReconnectTracker();
    t.connected(null);
    t.clientRequest(...request(0, "initialize", { protocolVersion: 1 }));
    t.clientSent(0, null);
    t.fromService(frame({ id: 0, result: { protocolVersion: 1, _meta: { hermes: { connectionId: "tab-1" } } } }));
    t.clientRequest(...request(1, "session/new", { cwd: "/work", mcpServers: [] }));
    t.clientSent(1, null);
    t.fromService(frame({ id: 1, result: { sessionId: "s1" } }));
    t.clientRequest(...request(5, "session/prompt", { sessionId: "s1", prompt: [] }));
    t.clientSent(5, null);
    t.disconnected();
    // Zed, on the same session, also numbered a prompt 5.
    expect(t.fromService(turnEnded("s1", 2, 5, "zed-connection")).answers).toEqual([]);
    expect(t.isPending(5)).toBe(true);
    expect(t.fromService(turnEnded("s1", 3, 5, "tab-1")).answers).toEqual([{ id: 5, result: { stopReason: "end_turn" } }]);
  });

  it("ignores a turn_ended of another client that reused the same request id", () => {
    const t = promptSentThenDropped();
    expect(t.fromService(turnEnded("s1", 2, 5, "someone-else")).answers).toEqual([]);
    expect(t.isPending(5)).toBe(true);
  });

  it("waits for the real response on the live connection, but remembers the outcome if the socket drops", () => {
    const t = withSession();
    t.clientRequest(...request(5, "session/prompt", { sessionId: "s1", prompt: [] }));
    t.clientSent(5, "c1");
    expect(t.fromService(turnEnded("s1", 1, 5, "c1", "max_tokens")).answers).toEqual([]);
    expect(t.disconnected().answers).toEqual([{ id: 5, result: { stopReason: "max_tokens" } }]);
  });

  it("never answers twice: the late real response after a turn_ended answer is dropped", () => {
    const t = promptSentThenDropped();
    t.fromService(turnEnded("s1", 2, 5, "c1"));
    expect(t.fromService(frame({ id: 5, result: { stopReason: "end_turn" } })).forward).toBe(false);
  });

  const idle = (turn: Record<string, unknown>) => ({ ok: true as const, result: { _meta: { hermes: { turn: { state: "idle", ...turn } } } } });

  it("answers with lastStopReason when the resumed session is idle and its last turn was this prompt", () => {
    const t = promptSentThenDropped();
    const decision = t.reattached("s1", idle({ lastStopReason: "cancelled", lastRequestId: 5, lastConnectionId: "c1" }));
    expect(decision).toEqual({ answers: [{ id: 5, result: { stopReason: "cancelled" } }], resend: [] });
    expect(t.isPending(5)).toBe(false);
  });

  it("answers with the stored error when the resumed session's last turn was this prompt and it failed", () => {
    const t = promptSentThenDropped();
    const lastError = { code: -32603, message: "The model request failed after 3 tries" };
    const decision = t.reattached("s1", idle({ lastStopReason: null, lastError, lastRequestId: 5, lastConnectionId: "c1" }));
    expect(decision).toEqual({ answers: [{ id: 5, error: lastError }], resend: [] });
  });

  it("answers with an error when the last turn was this prompt but the service has no lastStopReason", () => {
    const t = promptSentThenDropped();
    const { answers, resend } = t.reattached("s1", idle({ lastRequestId: 5, lastConnectionId: "c1" }));
    expect(resend).toEqual([]);
    expect(answers).toEqual([{ id: 5, error: expect.objectContaining({ code: -32603, data: { reason: "turn_outcome_unknown", details: expect.stringContaining("did not say how this prompt ended") } }) }]);
  });

  it("re-sends, once, a prompt the idle service never saw: the last turn was another request", () => {
    const t = promptSentThenDropped();
    const decision = t.reattached("s1", idle({ lastStopReason: "end_turn", lastRequestId: 4, lastConnectionId: "c1" }));
    expect(decision.answers).toEqual([]);
    expect(decision.resend).toEqual([{ id: 5, text: expect.stringContaining('"method":"session/prompt"') }]);
    expect(JSON.parse(decision.resend[0]!.text)).toMatchObject({ id: 5, method: "session/prompt", params: { sessionId: "s1" } });
    expect(t.isPending(5)).toBe(true);
    // Queued for the new connection, not counted as sent: a drop before it goes out re-sends nothing twice.
    expect(t.disconnected()).toEqual({ answers: [], resend: [] });
  });

  it("re-sends when the same request id was another client's prompt (different connection)", () => {
    const t = promptSentThenDropped();
    const decision = t.reattached("s1", idle({ lastStopReason: "end_turn", lastRequestId: 5, lastConnectionId: "someone-else" }));
    expect(decision.resend.map((r) => r.id)).toEqual([5]);
    expect(decision.answers).toEqual([]);
  });

  it("re-sends when the session never finished a turn (no lastRequestId at all)", () => {
    const t = promptSentThenDropped();
    expect(t.reattached("s1", idle({})).resend.map((r) => r.id)).toEqual([5]);
  });

  it("answers the re-sent prompt normally once it runs on the new connection", () => {
    const t = promptSentThenDropped();
    t.reattached("s1", idle({}));
    t.clientSent(5, "c2");
    // Live on the connection it was re-sent on: the prompt's own response is the answer.
    expect(t.fromService(turnEnded("s1", 2, 5, "c2")).answers).toEqual([]);
    expect(t.fromService(frame({ id: 5, result: { stopReason: "end_turn" } })).forward).toBe(true);
    expect(t.isPending(5)).toBe(false);
  });

  it("answers the re-sent prompt from lastStopReason when the next drop cut its response", () => {
    const t = promptSentThenDropped();
    t.reattached("s1", idle({}));
    t.clientSent(5, "c2");
    t.disconnected();
    t.connected("c3");
    const decision = t.reattached("s1", idle({ lastStopReason: "end_turn", lastRequestId: 5, lastConnectionId: "c2" }));
    expect(decision).toEqual({ answers: [{ id: 5, result: { stopReason: "end_turn" } }], resend: [] });
  });

  it("gives up with a clear error when a re-sent prompt is lost again", () => {
    const t = promptSentThenDropped();
    t.reattached("s1", idle({}));
    t.clientSent(5, "c2");
    t.disconnected();
    t.connected("c3");
    const decision = t.reattached("s1", idle({ lastStopReason: "end_turn", lastRequestId: 3, lastConnectionId: "c1" }));
    expect(decision.resend).toEqual([]);
    expect(decision.answers).toEqual([
      { id: 5, error: expect.objectContaining({ code: -32603, message: expect.stringContaining("lost this prompt"), data: { reason: "prompt_lost", details: expect.stringContaining("lost this prompt") } }) },
    ]);
    expect(t.isPending(5)).toBe(false);
  });

  it("keeps waiting while the resumed turn is still running", () => {
    const t = promptSentThenDropped();
    expect(t.reattached("s1", { ok: true, result: { _meta: { hermes: { turn: { state: "running", lastRequestId: 4, lastConnectionId: "c1" } } } } })).toEqual({
      answers: [],
      resend: [],
    });
    expect(t.isPending(5)).toBe(true);
  });

  it("fails the prompt and forgets the session when re-attaching is refused", () => {
    const t = promptSentThenDropped();
    const [answer] = t.reattached("s1", { ok: false, error: { code: -32002, message: "Resource not found" } }).answers;
    expect(answer).toMatchObject({ id: 5, error: { code: -32002 } });
    expect(t.reattachTargets()).toEqual([]);
  });

  it("fails every pending request on give-up, including ones never sent", () => {
    const t = promptSentThenDropped();
    t.clientRequest(...request(6, "_test/echo", {}));
    const error = { code: -32603, message: "unreachable" };
    expect(t.failAll(error)).toEqual([
      { id: 5, error },
      { id: 6, error },
    ]);
    expect(t.pendingCount).toBe(0);
  });
});
