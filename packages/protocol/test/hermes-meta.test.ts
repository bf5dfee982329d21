import { describe, expect, it } from "vitest";
import {
  afterSeqMeta,
  afterSeqOf,
  clientRequestId,
  readSessionProvenance,
  readTurnEnded,
  readTurnState,
  readUpdateSeq,
  sessionOfRequestId,
  TURN_ENDED,
  updateSeqMeta,
  wantsTurnEnded,
  withTurnEndedCapability,
  zClientRequestId,
  zSessionProvenance,
} from "../src/index.js";

describe("_meta.hermes.seq", () => {
  it("reads the session and seq of an update, and nothing from a plain ACP update", () => {
    expect(readUpdateSeq({ sessionId: "s", update: {}, _meta: updateSeqMeta(7) })).toEqual({ sessionId: "s", seq: 7 });
    expect(readUpdateSeq({ sessionId: "s", update: {} })).toBeUndefined();
    expect(readUpdateSeq({ sessionId: "s", _meta: { hermes: { seq: "7" } } })).toBeUndefined();
  });

  it("still reads it when a newer service adds fields beside it", () => {
    expect(readUpdateSeq({ sessionId: "s", extra: 1, _meta: { other: true, hermes: { seq: 2, epoch: 9 } } })).toEqual({ sessionId: "s", seq: 2 });
  });
});

describe("_meta.hermes.afterSeq", () => {
  it("accepts only a non-negative integer", () => {
    expect(afterSeqOf(afterSeqMeta(0))).toBe(0);
    expect(afterSeqOf({ hermes: { afterSeq: 12, more: 1 } })).toBe(12);
    for (const bad of [undefined, null, {}, { hermes: null }, { hermes: 5 }, { hermes: {} }, { afterSeq: 3 }, { hermes: { afterSeq: -1 } }, { hermes: { afterSeq: 1.5 } }, { hermes: { afterSeq: "3" } }]) {
      expect(afterSeqOf(bad)).toBeUndefined();
    }
  });
});

describe("_meta.hermes.turn", () => {
  it("reads the turn state of a load/resume result", () => {
    const result = { _meta: { hermes: { turn: { state: "idle", lastStopReason: "end_turn", lastRequestId: 3, lastConnectionId: "c", interruptedPrompt: "fix it" } } } };
    expect(readTurnState(result)).toEqual({ state: "idle", lastStopReason: "end_turn", lastRequestId: 3, lastConnectionId: "c", interruptedPrompt: "fix it" });
    expect(readTurnState({ _meta: { hermes: { turn: { state: "sleeping" } } } })).toBeUndefined();
    expect(readTurnState({})).toBeUndefined();
  });
});

describe("_hermes/turn_ended", () => {
  const params = { sessionId: "s", stopReason: "end_turn", seq: 4, _meta: { hermes: { requestId: 2, connectionId: "c1" } } };

  it("reads a finished turn as the prompt's result", () => {
    expect(TURN_ENDED).toBe("_hermes/turn_ended");
    expect(readTurnEnded(params)).toEqual({ sessionId: "s", seq: 4, requestId: 2, connectionId: "c1", outcome: { result: { stopReason: "end_turn" } } });
  });

  it("reads a failed turn as the prompt's error", () => {
    const failed = { ...params, error: { code: -32603, message: "model failed" } };
    expect(readTurnEnded(failed)?.outcome).toEqual({ error: { code: -32603, message: "model failed" } });
  });

  it("reads a failed turn with no stop reason (as the service sends it) as the prompt's error", () => {
    const failed = { ...params, stopReason: null, error: { code: -32603, message: "model failed" } };
    expect(readTurnEnded(failed)?.outcome).toEqual({ error: { code: -32603, message: "model failed" } });
  });

  it("refuses one without a seq or request id", () => {
    expect(readTurnEnded({ ...params, seq: undefined })).toBeUndefined();
    expect(readTurnEnded({ ...params, _meta: { hermes: {} } })).toBeUndefined();
    expect(readTurnEnded({ ...params, stopReason: null })).toBeUndefined();
  });
});

describe("clientCapabilities._meta.hermes.turnEnded", () => {
  it("is asked for only with an explicit true", () => {
    expect(wantsTurnEnded({ _meta: { hermes: { turnEnded: true } } })).toBe(true);
    for (const caps of [undefined, {}, { _meta: null }, { _meta: { hermes: {} } }, { _meta: { hermes: { turnEnded: false } } }, { _meta: { hermes: { turnEnded: "yes" } } }]) {
      expect(wantsTurnEnded(caps)).toBe(false);
    }
  });

  it("is added to initialize params without touching anything else", () => {
    const params = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true }, _meta: { zed: 1, hermes: { other: 2 } } }, clientInfo: { name: "e", version: "1" } };
    const added = withTurnEndedCapability(params) as typeof params & { clientCapabilities: { _meta: { hermes: Record<string, unknown> } } };
    expect(added).toEqual({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true }, _meta: { zed: 1, hermes: { other: 2, turnEnded: true } } },
      clientInfo: { name: "e", version: "1" },
    });
    expect(params.clientCapabilities._meta.hermes).toEqual({ other: 2 });
    expect(wantsTurnEnded(added.clientCapabilities)).toBe(true);
    expect(wantsTurnEnded((withTurnEndedCapability({ protocolVersion: 1 }) as { clientCapabilities: unknown }).clientCapabilities)).toBe(true);
    expect(withTurnEndedCapability("not params")).toBe("not params");
  });
});

describe("_meta.hermes.sessionProvenance", () => {
  it("reads provenance from a result and keeps fields a newer service adds", () => {
    const provenance = {
      acpSessionId: "s",
      currentHermesSessionId: "h2",
      rootHermesSessionId: "s",
      parentHermesSessionId: "s",
      sessionKind: "continuation",
      compressionDepth: 1,
      isContinuation: true,
      previousHermesSessionId: "s",
      reason: "compression",
      futureField: 1,
    };
    expect(readSessionProvenance({ sessionId: "s", _meta: { hermes: { sessionProvenance: provenance } } })).toEqual(provenance);
    expect(zSessionProvenance.safeParse({ ...provenance, sessionKind: "unknown" }).success).toBe(false);
  });
});

describe("client-request ids", () => {
  it("embed the session id and give it back, and refuse ids that are not ours", () => {
    const id = clientRequestId("sess:with:colons", 12);
    expect(zClientRequestId.safeParse(id).success).toBe(true);
    expect(sessionOfRequestId(id)).toBe("sess:with:colons");
    expect(sessionOfRequestId("hermes-proxy:3")).toBeNull();
    expect(sessionOfRequestId("hermes::1")).toBeNull();
    expect(sessionOfRequestId("hermes:")).toBeNull();
    expect(sessionOfRequestId("hermes:sess")).toBeNull();
    expect(sessionOfRequestId(null)).toBeNull();
    expect(sessionOfRequestId(12)).toBeNull();
    expect(zClientRequestId.safeParse("perm-1").success).toBe(false);
  });
});
