import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { frameRoute } from "../../../src/http-stream/frame-route.js";
import { missedAfter, SSE_IDLE_MS, SseChannels, sseEvent } from "../../../src/http-stream/sse-channels.js";

const sent = (ids: string[]) => ids.map((id) => ({ id, seq: Number.isInteger(Number(id)) ? Number(id) : undefined, data: id, written: true }));

describe("missedAfter", () => {
  it("replays what follows a buffered id, by position", () => {
    expect(missedAfter(sent(["3", "3.1", "4", "5"]), "3.1").map((e) => e.id)).toEqual(["4", "5"]);
  });
  it("falls back to seq order for an id no longer buffered", () => {
    expect(missedAfter(sent(["7", "8", "8.1", "9"]), "7.5").map((e) => e.id)).toEqual(["8", "8.1", "9"]);
  });
  it("replays everything for an id that is not a seq", () => {
    expect(missedAfter(sent(["1", "2"]), "bogus")).toHaveLength(2);
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
    const connection = watch(channels.open("", null));
    const session = watch(channels.open("s1", null));
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
