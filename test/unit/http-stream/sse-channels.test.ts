import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { frameRoute } from "../../../src/http-stream/frame-route.js";
import { eventId, isBefore, parseLastEventId } from "../../../src/http-stream/event-id.js";
import { SSE_IDLE_MS, SseChannels, sseEvent } from "../../../src/http-stream/sse-channels.js";

describe("parseLastEventId", () => {
  it("reads a seq and a seq with the frames after it", () => {
    expect(parseLastEventId("42")).toEqual({ ok: true, position: { seq: 42, after: 0 } });
    expect(parseLastEventId("42.3")).toEqual({ ok: true, position: { seq: 42, after: 3 } });
    expect(parseLastEventId(null)).toEqual({ ok: true, position: null });
  });
  it("refuses what this service never sends", () => {
    for (const bad of ["bogus", "", "-1", "1e3", "4.0", " 4", "01", "1.2.3", "9".repeat(40)]) expect(parseLastEventId(bad).ok, bad).toBe(false);
  });
  it("orders positions along a stream", () => {
    expect(isBefore({ seq: 3, after: 1 }, { seq: 4, after: 0 })).toBe(true);
    expect(isBefore({ seq: 4, after: 0 }, { seq: 4, after: 1 })).toBe(true);
    expect(isBefore({ seq: 4, after: 1 }, { seq: 4, after: 1 })).toBe(false);
    expect(eventId({ seq: 4, after: 0 })).toBe("4");
    expect(eventId({ seq: 4, after: 2 })).toBe("4.2");
  });
});

describe("sseEvent", () => {
  it("writes one id and one data line per line", () => {
    expect(sseEvent("4", '{"a":1}')).toBe('id: 4\ndata: {"a":1}\n\n');
    expect(sseEvent("4", "a\nb")).toBe("id: 4\ndata: a\ndata: b\n\n");
  });
});

describe("frameRoute", () => {
  it("reads a session update's session and seq", () => {
    const frame = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: {}, _meta: { hermes: { seq: 12 } } } });
    expect(frameRoute(frame)).toEqual({ sessionId: "s1", responseTo: undefined, seq: 12 });
  });
  it("reads a logged turn_ended's seq from its params", () => {
    const frame = JSON.stringify({ jsonrpc: "2.0", method: "_hermes/turn_ended", params: { sessionId: "s1", seq: 9, stopReason: "end_turn" } });
    expect(frameRoute(frame).seq).toBe(9);
  });
  it("reads the id a response answers", () => {
    expect(frameRoute(JSON.stringify({ jsonrpc: "2.0", id: 7, result: {} }))).toEqual({ sessionId: undefined, responseTo: "7", seq: undefined });
  });
  it("routes nothing for a frame that is not JSON", () => {
    expect(frameRoute("{oops")).toEqual({ sessionId: undefined, responseTo: undefined, seq: undefined });
  });
});

describe("SseChannels idle close", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const update = (sessionId: string, seq: number) =>
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: {}, _meta: { hermes: { seq } } } });

  /** Reads the stream in the background; `ended` says whether it has closed. */
  function watch(res: Response) {
    const state = { ended: false, text: "" };
    const reader = res.body!.getReader();
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return void (state.ended = true);
        state.text += new TextDecoder().decode(value);
      }
    })();
    return state;
  }

  it("is exactly 5 minutes", () => {
    expect(SSE_IDLE_MS).toBe(300_000);
  });

  it("closes a session's stream SSE_IDLE_MS after its last event, and never the connection's", async () => {
    const channels = new SseChannels(SSE_IDLE_MS);
    const connection = watch((await channels.open("", null)) as Response);
    const session = watch((await channels.open("s1", null)) as Response);
    expect(channels.streaming()).toBe(true);

    await vi.advanceTimersByTimeAsync(SSE_IDLE_MS - 1_000);
    expect(session.ended).toBe(false);
    // An event restarts the session's clock; one for another session does not.
    channels.send(update("s1", 1));
    await vi.advanceTimersByTimeAsync(SSE_IDLE_MS - 1);
    channels.send(update("s2", 2));
    expect(session.ended).toBe(false);
    expect(session.text).toContain("id: 1\n");
    await vi.advanceTimersByTimeAsync(1);
    expect(session.ended).toBe(true);

    await vi.advanceTimersByTimeAsync(10 * SSE_IDLE_MS);
    expect(connection.ended).toBe(false);
    // The other session has no stream of its own, so its event went to the connection's.
    expect(connection.text).toContain("id: 2\n");
    channels.closeAll();
    await vi.advanceTimersByTimeAsync(0);
    expect(connection.ended).toBe(true);
    expect(channels.streaming()).toBe(false);
  });
});
