/**
 * The WebSocket an upstream call speaks ACP over: the SDK closes a call's
 * connection by cancelling what it reads, and the socket must close with it
 * (otherwise every model call would leave one open).
 */
import { describe, expect, it } from "vitest";
import { webSocketStream } from "../../../../src/agent/providers/websocket-transport.js";

class FakeSocket extends EventTarget {
  readonly sent: string[] = [];
  closed: [number, string] | null = null;
  send(text: string): void {
    this.sent.push(text);
  }
  close(code: number, reason: string): void {
    this.closed = [code, reason];
  }
}

describe("webSocketStream", () => {
  it("reads JSON frames, skips others, writes JSON, and closes the socket when its reader is cancelled", async () => {
    const ws = new FakeSocket();
    const { readable, writable } = webSocketStream(ws as unknown as WebSocket);
    const reader = readable.getReader();
    ws.dispatchEvent(Object.assign(new Event("message"), { data: "not json" }));
    ws.dispatchEvent(Object.assign(new Event("message"), { data: JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }) }));
    expect((await reader.read()).value).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    const writer = writable.getWriter();
    await writer.write({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "u" } });
    expect(ws.sent).toEqual(['{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"u"}}']);
    expect(ws.closed).toBeNull();
    await reader.cancel();
    expect(ws.closed).toEqual([1000, "done"]);
  });
});
