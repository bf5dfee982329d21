import type { AnyMessage } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { UpdateOrder } from "../../../../src/agent/providers/update-order.js";

const update = (text: string): AnyMessage => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "up", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
});
const answer: AnyMessage = { jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } };

/** A transport whose incoming side holds `messages`, read through `order` as the SDK would. */
async function readAll(order: UpdateOrder, messages: AnyMessage[]): Promise<AnyMessage[]> {
  const readable = new ReadableStream<AnyMessage>({
    start(c) {
      for (const m of messages) c.enqueue(m);
      c.close();
    },
  });
  const watched = order.watch({ readable, writable: new WritableStream() });
  const read: AnyMessage[] = [];
  for (const reader = watched.readable.getReader(); ; ) {
    const { value, done } = await reader.read();
    if (done) return read;
    read.push(value);
  }
}

describe("UpdateOrder", () => {
  it("holds the answer until the updates read before it are handled, however late their handler runs", async () => {
    const order = new UpdateOrder();
    await readAll(order, [update("a"), update("b"), answer]);
    const events: string[] = [];
    const stopped = order.caughtUp(10_000).then(() => events.push("stop"));
    // The handlers run well after the answer was read: a macrotask later and more.
    setTimeout(() => (events.push("a"), order.handled()), 5);
    setTimeout(() => (events.push("b"), order.handled()), 20);
    await stopped;
    expect(events).toEqual(["a", "b", "stop"]);
  });

  it("lets the answer through at once when every update was handled, and counts only session/update notifications", async () => {
    const order = new UpdateOrder();
    await readAll(order, [{ jsonrpc: "2.0", id: 1, method: "fs/read_text_file", params: {} }, update("a"), answer]);
    order.handled();
    let done = false;
    await order.caughtUp(10_000).then(() => (done = true));
    expect(done).toBe(true);
  });

  it("does not wait for ever for an update the SDK never hands to its handler (refused as invalid)", async () => {
    const order = new UpdateOrder();
    await readAll(order, [update("lost"), answer]);
    const started = Date.now();
    await order.caughtUp(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});
