import { describe, expect, it } from "vitest";
import { frameRoute } from "../../../src/http-stream/frame-route.js";
import { missedAfter, sseEvent } from "../../../src/http-stream/sse-channels.js";

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
