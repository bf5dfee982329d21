/**
 * A session's SSE stream resumed with Last-Event-ID when its buffer no longer
 * reaches back: the gap comes from the update log (here an array standing in
 * for the session's, paged as the session pages it), each frame once, in order.
 */
import { describe, expect, it, vi } from "vitest";
import { SSE_IDLE_MS, SseChannels, type ReadLog } from "../../../src/http-stream/sse-channels.js";

const update = (seq: number) =>
  JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: { n: seq }, _meta: { hermes: { seq } } } });
const response = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } });

/** The session's log: frames 1..n, read a page of `pageSize` at a time. */
function fakeLog(pageSize = 100) {
  const frames: string[] = [];
  const reads: [number, number][] = [];
  const read: ReadLog = async (_sessionId, afterSeq, untilSeq) => {
    reads.push([afterSeq, untilSeq]);
    const entries = frames
      .map((frame, i) => ({ seq: i + 1, frame }))
      .filter((e) => e.seq > afterSeq && e.seq <= untilSeq)
      .slice(0, pageSize);
    return { entries, cursor: entries.at(-1)?.seq ?? afterSeq, more: entries.length === pageSize };
  };
  const append = (): string => {
    const frame = update(frames.length + 1);
    frames.push(frame);
    return frame;
  };
  return { frames, reads, read, append };
}

/** Reads a stream's events until `count` have come (or it ends). */
async function events(res: Response, count: number): Promise<{ id: string; data: string }[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const out: { id: string; data: string }[] = [];
  let text = "";
  while (out.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    let cut: number;
    while ((cut = text.indexOf("\n\n")) >= 0) {
      const block = text.slice(0, cut);
      text = text.slice(cut + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      if (id !== undefined) out.push({ id, data: block.split("\n").find((l) => l.startsWith("data: "))!.slice(6) });
    }
  }
  void reader.cancel().catch(() => undefined);
  return out;
}

const seqOf = (data: string) => (JSON.parse(data) as { params?: { _meta?: { hermes?: { seq?: number } } } }).params?._meta?.hermes?.seq;

describe("a session stream resumed with Last-Event-ID", () => {
  it("gets every missed update once and in order when more than the buffer's 512 were missed", async () => {
    const log = fakeLog();
    const channels = new SseChannels(SSE_IDLE_MS, log.read);
    const first = (await channels.open("s1", null)) as Response;
    for (let i = 0; i < 10; i++) channels.send(log.append());
    const seen = await events(first, 10);
    expect(seen.at(-1)!.id).toBe("10");
    // The client is gone; 1,000 more updates and the prompt's answer go by.
    for (let i = 0; i < 1_000; i++) channels.send(log.append());
    channels.requestFor("s1", 3);
    channels.send(response(3));
    const resumed = (await channels.open("s1", { seq: 10, after: 0 })) as Response;
    const rest = await events(resumed, 1_001);
    expect(rest.map((e) => e.id)).toEqual([...Array.from({ length: 1_000 }, (_, i) => String(i + 11)), "1010.1"]);
    expect(rest.slice(0, -1).map((e) => seqOf(e.data))).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 11));
    // Only the part before the buffer (its 512 latest events: seq 500 on, and the answer) was read from the log, a page at a time.
    expect(log.reads).toEqual([[10, 499], [110, 499], [210, 499], [310, 499], [410, 499]]);
    channels.closeAll();
  });

  it("after the object restarted (an empty buffer) gets the log after its id, then live frames, none twice", async () => {
    const log = fakeLog(20);
    for (let i = 0; i < 60; i++) log.append();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The first page waits, so live frames arrive while the log is read: two already logged (in flight), one new.
    const channels = new SseChannels(SSE_IDLE_MS, async (...args) => {
      if (log.reads.length === 0) await gate;
      return log.read(...args);
    });
    const opening = channels.open("s1", { seq: 40, after: 0 });
    channels.send(log.frames[58]!);
    channels.send(log.frames[59]!);
    channels.send(log.append()); // seq 61
    channels.send(JSON.stringify({ jsonrpc: "2.0", id: "hermes:s1:1", method: "session/request_permission", params: { sessionId: "s1" } }));
    release();
    const resumed = (await opening) as Response;
    const got = await events(resumed, 22);
    expect(got.map((e) => e.id)).toEqual([...Array.from({ length: 21 }, (_, i) => String(i + 41)), "61.1"]);
    channels.closeAll();
  });

  it("reads nothing from the log when the buffer still reaches back to the id", async () => {
    const log = fakeLog();
    const channels = new SseChannels(SSE_IDLE_MS, log.read);
    for (let i = 0; i < 5; i++) channels.send(log.append());
    await channels.open("s1", null);
    for (let i = 0; i < 5; i++) channels.send(log.append());
    const got = await events((await channels.open("s1", { seq: 7, after: 0 })) as Response, 3);
    expect(got.map((e) => e.id)).toEqual(["8", "9", "10"]);
    expect(log.reads).toEqual([]);
    channels.closeAll();
  });

  it("says not_attached when the session does not know the connection, and keeps what arrived meanwhile", async () => {
    const channels = new SseChannels(SSE_IDLE_MS, async () => null);
    expect(await channels.open("s1", { seq: 3, after: 0 })).toBe("not_attached");
    channels.send(update(4));
    const got = await events((await channels.open("s1", null)) as Response, 1);
    expect(got.map((e) => e.id)).toEqual(["4"]);
    channels.closeAll();
  });

  it("still closes SSE_IDLE_MS after its last event once it has caught up from the log", async () => {
    vi.useFakeTimers();
    try {
      const log = fakeLog();
      for (let i = 0; i < 3; i++) log.append();
      const channels = new SseChannels(SSE_IDLE_MS, log.read);
      const res = (await channels.open("s1", { seq: 1, after: 0 })) as Response;
      const reader = res.body!.getReader();
      let ended = false;
      void (async () => {
        while (!(await reader.read()).done);
        ended = true;
      })();
      await vi.advanceTimersByTimeAsync(SSE_IDLE_MS - 1_000);
      expect(ended).toBe(false);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(ended).toBe(true);
      channels.closeAll();
    } finally {
      vi.useRealTimers();
    }
  });

  it("never reads a log for the connection's own stream", async () => {
    const read = vi.fn<ReadLog>(async () => null);
    const channels = new SseChannels(SSE_IDLE_MS, read);
    expect(await channels.open("", { seq: 3, after: 0 })).toBeInstanceOf(Response);
    expect(read).not.toHaveBeenCalled();
    channels.closeAll();
  });
});
