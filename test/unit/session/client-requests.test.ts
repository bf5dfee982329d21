import { afterEach, describe, expect, it, vi } from "vitest";
import { RequestError, sessionOfRequestId } from "@hermes-edge/protocol";
import { ClientRequestError, ClientRequests } from "../../../src/session/client-requests.js";

afterEach(() => vi.useRealTimers());

const idOf = (frame: string) => (JSON.parse(frame) as { id: string }).id;

describe("ClientRequests", () => {
  it("builds request frames whose ids embed the session and count up", () => {
    let sessionId = "";
    const requests = new ClientRequests(() => sessionId, undefined, () => 7);
    sessionId = "sess-1"; // read lazily
    const first = requests.open("conn-a", "fs/read_text_file", { path: "/a" });
    const second = requests.open("conn-a", "session/request_permission", { options: [] });
    expect(JSON.parse(first.frame)).toEqual({ jsonrpc: "2.0", id: "hermes:sess-1:7001", method: "fs/read_text_file", params: { path: "/a" } });
    expect(idOf(second.frame)).toBe("hermes:sess-1:7002");
    expect(sessionOfRequestId(idOf(first.frame))).toBe("sess-1");
  });

  it("never reuses a replaced instance's ids, so an old dialog's late answer cannot settle a new request", async () => {
    let clock = Date.parse("2026-12-01T12:00:00Z");
    const before = new ClientRequests(() => "s", undefined, () => clock);
    const old = idOf(before.open("conn-a", "session/request_permission", {}).frame);
    clock += 5; // the object restarts a few ms later
    const after = new ClientRequests(() => "s", undefined, () => clock);
    const fresh = after.open("conn-b", "session/request_permission", {});
    expect(idOf(fresh.frame)).not.toBe(old);
    expect(after.settle({ id: old, result: { outcome: { outcome: "selected", optionId: "allow_always" } } })).toBe(false);
    expect(Number(idOf(fresh.frame).split(":").pop())).toBeLessThan(Number.MAX_SAFE_INTEGER);
  });

  it("asks again under a predecessor's id when told to (the same question after a restart), so the old dialog's answer settles it", async () => {
    const before = new ClientRequests(() => "s", undefined, () => 1_000);
    const old = before.open("conn-a", "session/request_permission", {});
    const after = new ClientRequests(() => "s", undefined, () => 2_000);
    const again = after.open("conn-b", "session/request_permission", {}, { id: old.id });
    expect(again.id).toBe(old.id);
    expect(idOf(again.frame)).toBe(old.id);
    expect(after.settle({ id: old.id, result: { outcome: { outcome: "selected", optionId: "allow_once" } } })).toBe(true);
    await expect(again.answer).resolves.toMatchObject({ outcome: { optionId: "allow_once" } });
    // An id still pending is never given to a second request.
    const pending = after.open("conn-b", "fs/read_text_file", {});
    expect(after.open("conn-b", "fs/read_text_file", {}, { id: pending.id }).id).not.toBe(pending.id);
  });

  it("settles a request once; later answers for it are ignored", async () => {
    const requests = new ClientRequests(() => "s");
    const { frame, answer } = requests.open("conn-a", "fs/read_text_file", {});
    const id = idOf(frame);
    expect(requests.settle({ id, result: { content: "hello" } })).toBe(true);
    await expect(answer).resolves.toEqual({ content: "hello" });
    expect(requests.settle({ id, result: { content: "again" } })).toBe(false);
  });

  it("resolves a response without a result with null and ignores unknown ids", async () => {
    const requests = new ClientRequests(() => "s");
    const { frame, answer } = requests.open("conn-a", "fs/write_text_file", {});
    expect(requests.settle({ id: "hermes:s:99", result: {} })).toBe(false);
    expect(requests.settle({ id: idOf(frame) })).toBe(true);
    await expect(answer).resolves.toBeNull();
  });

  it("rejects with ClientRequestError carrying the body when the editor answers an error", async () => {
    const requests = new ClientRequests(() => "s");
    const { frame, answer } = requests.open("conn-a", "fs/read_text_file", {});
    const body = { code: -32002, message: "file not found", data: { path: "/a" } };
    expect(requests.settle({ id: idOf(frame), error: body })).toBe(true);
    const error = await answer.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientRequestError);
    expect((error as ClientRequestError).body).toEqual(body);
    expect((error as Error).message).toBe("the editor answered -32002: file not found");
  });

  it("rejects when the editor does not answer within timeoutMs", async () => {
    vi.useFakeTimers();
    const requests = new ClientRequests(() => "s");
    const { frame, answer } = requests.open("conn-a", "terminal/wait_for_exit", {}, { timeoutMs: 1_000 });
    const outcome = answer.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("the editor did not answer terminal/wait_for_exit within 1000 ms");
    expect(requests.settle({ id: idOf(frame), result: {} })).toBe(false);
  });

  it("clears the timeout once answered", async () => {
    vi.useFakeTimers();
    const requests = new ClientRequests(() => "s");
    const { frame, answer } = requests.open("conn-a", "fs/read_text_file", {}, { timeoutMs: 1_000 });
    expect(vi.getTimerCount()).toBe(1);
    requests.settle({ id: idOf(frame), result: { content: "x" } });
    expect(vi.getTimerCount()).toBe(0);
    await expect(answer).resolves.toEqual({ content: "x" });
  });

  it("rejects with requestCancelled when the signal aborts", async () => {
    const requests = new ClientRequests(() => "s");
    const controller = new AbortController();
    const { frame, answer } = requests.open("conn-a", "session/request_permission", {}, { signal: controller.signal });
    controller.abort();
    const error = await answer.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).code).toBe(-32800);
    expect(requests.settle({ id: idOf(frame), result: {} })).toBe(false);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const requests = new ClientRequests(() => "s");
    const controller = new AbortController();
    controller.abort();
    const { frame, answer } = requests.open("conn-a", "session/request_permission", {}, { signal: controller.signal });
    const error = await answer.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).code).toBe(-32800);
    expect(requests.settle({ id: idOf(frame), result: {} })).toBe(false);
  });

  it("failConnection rejects only the requests sent on that connection", async () => {
    const requests = new ClientRequests(() => "s");
    const a1 = requests.open("conn-a", "fs/read_text_file", {});
    const b1 = requests.open("conn-b", "fs/read_text_file", {});
    const a2 = requests.open("conn-a", "terminal/output", {});
    requests.failConnection("conn-a");
    for (const { answer } of [a1, a2]) {
      await expect(answer).rejects.toThrow("the editor connection closed before answering");
    }
    expect(requests.settle({ id: idOf(a1.frame), result: {} })).toBe(false);
    expect(requests.settle({ id: idOf(b1.frame), result: "still here" })).toBe(true);
    await expect(b1.answer).resolves.toBe("still here");
  });

  it("keeps a dropped connection's requests for a reattaching editor and re-sends them", async () => {
    vi.useFakeTimers();
    const requests = new ClientRequests(() => "s");
    const a = requests.open("conn-a", "session/request_permission", { options: [] });
    const b = requests.open("conn-b", "fs/read_text_file", {});
    requests.orphan("conn-a", 30_000);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(requests.adopt("conn-c")).toEqual({ resend: [a.frame], withdrawn: [] });
    expect(requests.adopt("conn-d")).toEqual({ resend: [], withdrawn: [] });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(requests.settle({ id: idOf(a.frame), result: { outcome: { outcome: "cancelled" } } })).toBe(true);
    await expect(a.answer).resolves.toEqual({ outcome: { outcome: "cancelled" } });
    expect(requests.settle({ id: idOf(b.frame), result: "b" })).toBe(true);
  });

  it("fails a request bound to its connection (mcp/message) when that connection drops, and never hands it to another", async () => {
    const requests = new ClientRequests(() => "s");
    const bound = requests.open("conn-a", "mcp/message", { serverId: "hermes-proxy-stdio-1", method: "tools/call" }, { bound: true });
    const outcome = bound.answer.catch((e: unknown) => e);
    const loose = requests.open("conn-a", "fs/read_text_file", {});
    requests.orphan("conn-a", 30_000);
    expect(((await outcome) as Error).message).toBe("the editor connection it was sent on closed before answering");
    expect(requests.adopt("conn-b")).toEqual({ resend: [loose.frame], withdrawn: [] });
    expect(requests.settle({ id: idOf(bound.frame), result: {} })).toBe(false);
  });

  it("fails an orphaned request when no editor reattaches within the grace period", async () => {
    vi.useFakeTimers();
    const requests = new ClientRequests(() => "s");
    const { answer, frame } = requests.open("conn-a", "fs/read_text_file", {});
    const outcome = answer.catch((e: unknown) => e);
    requests.orphan("conn-a", 30_000);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(((await outcome) as Error).message).toBe("the editor connection closed and no editor reattached within 30 s");
    // The editor that showed it comes back later: it is told the request is gone.
    expect(requests.adopt("conn-b")).toEqual({ resend: [], withdrawn: [idOf(frame)] });
    expect(requests.adopt("conn-c")).toEqual({ resend: [], withdrawn: [] });
  });

  it("tells the next editor to attach about a request cancelled while no editor was attached, not the one it was sent on", async () => {
    const withdrawn: [string, string][] = [];
    const requests = new ClientRequests(() => "s", (connectionId, id) => withdrawn.push([connectionId, id]));
    const controller = new AbortController();
    const asked = requests.open("conn-a", "session/request_permission", {}, { signal: controller.signal });
    const outcome = asked.answer.catch((e: unknown) => e);
    requests.orphan("conn-a", 30_000);
    controller.abort();
    expect((await outcome) as RequestError).toBeInstanceOf(RequestError);
    expect(withdrawn).toEqual([]);
    expect(requests.adopt("conn-b")).toEqual({ resend: [], withdrawn: [idOf(asked.frame)] });
    expect(requests.settle({ id: idOf(asked.frame), result: {} })).toBe(false);
  });

  it("withdraws a request from its editor when it times out or its turn is cancelled, not when answered", async () => {
    vi.useFakeTimers();
    const withdrawn: [string, string][] = [];
    const requests = new ClientRequests(() => "s", (connectionId, id) => withdrawn.push([connectionId, id]));
    const timed = requests.open("conn-a", "session/request_permission", {}, { timeoutMs: 1_000 });
    const controller = new AbortController();
    const aborted = requests.open("conn-b", "terminal/wait_for_exit", {}, { signal: controller.signal });
    const answered = requests.open("conn-a", "fs/read_text_file", {}, { timeoutMs: 1_000 });
    requests.settle({ id: idOf(answered.frame), result: {} });
    const outcomes = [timed.answer.catch(() => "failed"), aborted.answer.catch(() => "failed")];
    controller.abort();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await Promise.all(outcomes)).toEqual(["failed", "failed"]);
    expect(withdrawn).toEqual([
      ["conn-b", idOf(aborted.frame)],
      ["conn-a", idOf(timed.frame)],
    ]);
  });
});
