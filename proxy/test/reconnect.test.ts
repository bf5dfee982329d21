import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeService } from "./fake-service.js";
import { chunkTexts, INIT_PARAMS, isolatedEnv, ProxyProcess, type Message } from "./proxy-process.js";

let service: FakeService;
let proxy: ProxyProcess | undefined;

beforeEach(async () => {
  service = await FakeService.start();
});

afterEach(async () => {
  proxy?.kill();
  proxy = undefined;
  await service.stop();
});

async function startSession(): Promise<{ p: ProxyProcess; sessionId: string }> {
  const p = new ProxyProcess(["--url", service.url, "--log-level", "debug"], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
  proxy = p;
  await p.request("initialize", INIT_PARAMS);
  const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
  return { p, sessionId: (created["result"] as { sessionId: string }).sessionId };
}

const expected = (n: number) => Array.from({ length: n }, (_, i) => `chunk ${i + 1}`);
const responsesTo = (p: ProxyProcess, id: number) => p.messages.filter((m: Message) => m.id === id && !("method" in m));

describe("reconnect", () => {
  it("delivers every update exactly once, in order, and answers the prompt when the socket is cut mid-turn", async () => {
    const { p, sessionId } = await startSession();
    service.turn = { updates: 12, intervalMs: 40, cutAfter: 3, stopReason: "end_turn" };

    p.send({ id: 10, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "long task" }] } });
    const done = await p.waitFor((m) => m.id === 10 && "result" in m, 10_000, "prompt answer");

    expect(done["result"]).toEqual({ stopReason: "end_turn" });
    expect(responsesTo(p, 10)).toHaveLength(1);
    expect(chunkTexts(p.messages, sessionId)).toEqual(expected(12));
    expect(p.messages.filter((m) => m.method === "_hermes/turn_ended")).toHaveLength(1);

    // The proxy re-initialized with the editor's params under its own id, then resumed after seq 3.
    const second = service.received.filter((r) => r.connectionId === "conn-2").map((r) => r.message);
    expect(second[0]).toMatchObject({ id: expect.stringMatching(/^hermes-proxy:/), method: "initialize", params: INIT_PARAMS });
    expect(second[1]).toMatchObject({
      id: expect.stringMatching(/^hermes-proxy:/),
      method: "session/resume",
      params: { sessionId, cwd: "/project", mcpServers: [], _meta: { hermes: { afterSeq: 3 } } },
    });
    // Nothing addressed to the proxy's own ids leaked to the editor.
    expect(p.messages.filter((m) => typeof m.id === "string" && m.id.startsWith("hermes-proxy:"))).toEqual([]);
    expect(p.garbage).toEqual([]);
  });

  it("answers the prompt from the replayed turn_ended when the turn finished during the outage, and sends queued requests after re-attach", async () => {
    const { p, sessionId } = await startSession();
    service.turn = { updates: 5, intervalMs: 10, cutAfter: 2, stopReason: "max_tokens" };

    p.send({ id: 20, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "short" }] } });
    await p.waitForStderr(/connection to the service closed/);
    p.send({ id: 21, method: "_test/echo", params: { queued: true } });

    const done = await p.waitFor((m) => m.id === 20 && "result" in m, 10_000, "prompt answer");
    expect(done["result"]).toEqual({ stopReason: "max_tokens" });
    const echo = await p.waitFor((m) => m.id === 21, 5000, "queued request answer");
    expect(echo["result"]).toEqual({ echo: { queued: true } });
    expect(chunkTexts(p.messages, sessionId)).toEqual(expected(5));
    expect(responsesTo(p, 20)).toHaveLength(1);

    const order = service.received.filter((r) => r.connectionId === "conn-2").map((r) => r.message["method"]);
    expect(order).toEqual(["initialize", "session/resume", "_test/echo"]);
  });

  it("never forwards a seq twice, even when the service replays more than was asked for", async () => {
    const { p, sessionId } = await startSession();
    service.replayEverything = true;
    service.turn = { updates: 8, intervalMs: 30, cutAfter: 4, stopReason: "end_turn" };

    p.send({ id: 40, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "x" }] } });
    await p.waitFor((m) => m.id === 40 && "result" in m, 10_000, "prompt answer");
    expect(chunkTexts(p.messages, sessionId)).toEqual(expected(8));
    expect(p.messages.filter((m) => m.method === "_hermes/turn_ended")).toHaveLength(1);
    expect(responsesTo(p, 40)).toHaveLength(1);
  });

  it("survives a service restart between turns without replaying the first turn", async () => {
    const { p, sessionId } = await startSession();
    service.turn = { updates: 2, intervalMs: 5, stopReason: "end_turn" };
    await p.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });

    await service.stop();
    await p.waitForStderr(/connection to the service closed/);
    // Sent while the service is down: waits in the queue.
    p.send({ id: 30, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "two" }] } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await service.listen();

    const done = await p.waitFor((m) => m.id === 30 && "result" in m, 15_000, "second prompt answer");
    expect(done["result"]).toEqual({ stopReason: "end_turn" });
    // Turn one's two chunks, then turn two's two chunks: none repeated.
    expect(chunkTexts(p.messages, sessionId)).toEqual(["chunk 1", "chunk 2", "chunk 1", "chunk 2"]);
    const resume = service.receivedMethods("session/resume").at(-1)?.message;
    expect(resume).toMatchObject({ params: { _meta: { hermes: { afterSeq: 3 } } } });
  });
});
