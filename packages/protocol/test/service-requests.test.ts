import { describe, expect, it } from "vitest";
import { ANSWER_MEMORY_MS, ServiceRequests } from "../src/index.js";

describe("ServiceRequests", () => {
  it("hands a request on once and drops the service's copy while the client has not answered", () => {
    const requests = new ServiceRequests();
    expect(requests.arrived("s:1", 0, true)).toEqual({ kind: "new" });
    expect(requests.arrived("s:1", 5, false)).toEqual({ kind: "copy" });
  });

  it("drops a copy that arrives while the answer is only queued", () => {
    const requests = new ServiceRequests();
    requests.arrived("s:1", 0, true);
    expect(requests.answered("s:1", "answer")).toBe(true);
    expect(requests.arrived("s:1", 10, false)).toEqual({ kind: "copy" });
  });

  it("answers a copy that arrives after the answer went out with that answer again", () => {
    const requests = new ServiceRequests();
    requests.arrived("s:1", 0, true);
    requests.answered("s:1", "answer");
    requests.sent("s:1", 100);
    expect(requests.arrived("s:1", 120, true)).toEqual({ kind: "answer-again", text: "answer" });
  });

  it("forgets an answer that went out long enough ago on an open link, and not during an outage", () => {
    const requests = new ServiceRequests();
    requests.arrived("s:1", 0, true);
    requests.answered("s:1", "answer");
    requests.sent("s:1", 0);
    expect(requests.arrived("s:1", ANSWER_MEMORY_MS * 3, false)).toEqual({ kind: "answer-again", text: "answer" });
    requests.reopened(ANSWER_MEMORY_MS * 5);
    expect(requests.arrived("s:1", ANSWER_MEMORY_MS * 5 + 1, true)).toEqual({ kind: "answer-again", text: "answer" });
    expect(requests.arrived("s:2", ANSWER_MEMORY_MS * 6 + 1, true)).toEqual({ kind: "new" });
    expect(requests.arrived("s:1", ANSWER_MEMORY_MS * 6 + 2, true)).toEqual({ kind: "new" });
  });

  it("does not claim an answer to a request it never handed on", () => {
    expect(new ServiceRequests().answered("s:9", "answer")).toBe(false);
  });

  it("forgets a request the service withdraws, answered or not, and ignores other notifications", () => {
    const requests = new ServiceRequests();
    requests.arrived("s:1", 0, true);
    requests.arrived(7, 0, true);
    requests.arrived("s:3", 0, true);
    requests.answered("s:3", "answer");
    requests.notified({ jsonrpc: "2.0", method: "session/update", params: { requestId: "s:1" } });
    requests.notified({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: { not: "an id" } } });
    // Still remembered: their copies are held back.
    for (const id of ["s:1", 7, "s:3"]) expect(requests.arrived(id, 1, false)).toEqual({ kind: "copy" });
    requests.notified({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "s:1" } });
    requests.notified({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 7 } });
    requests.notified({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "s:3" } });
    // Forgotten: nothing to answer, and the same id is new again.
    expect(requests.answered("s:1", "late")).toBe(false);
    expect(requests.answered(7, "late")).toBe(false);
    expect(requests.answered("s:3", "late")).toBe(false);
    expect(requests.arrived("s:3", 2, false)).toEqual({ kind: "new" });
  });
});
