import { describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { chunkTexts, INIT_PARAMS, INIT_PARAMS_TURN_ENDED, isolatedEnv, ProxyProcess, type Message, WAIT_MS } from "./proxy-process.js";

const fx = useFakeService();

async function startSession(initParams: object = INIT_PARAMS): Promise<{ p: ProxyProcess; sessionId: string }> {
  const p = fx.spawn(["--url", fx.service.url, "--log-level", "debug"], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
  await p.request("initialize", initParams);
  const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
  return { p, sessionId: (created["result"] as { sessionId: string }).sessionId };
}

const expected = (n: number) => Array.from({ length: n }, (_, i) => `chunk ${i + 1}`);
const responsesTo = (p: ProxyProcess, id: number) => p.messages.filter((m: Message) => m.id === id && !("method" in m));

describe("reconnect", () => {
  it("delivers every update exactly once, in order, and answers the prompt when the socket is cut mid-turn", async () => {
    const { p, sessionId } = await startSession();
    fx.service.turn = { updates: 12, intervalMs: 40, cutAfter: 3, stopReason: "end_turn" };

    p.send({ id: 10, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "long task" }] } });
    const done = await p.waitFor((m) => m.id === 10 && "result" in m, WAIT_MS, "prompt answer");

    expect(done["result"]).toEqual({ stopReason: "end_turn" });
    expect(responsesTo(p, 10)).toHaveLength(1);
    expect(chunkTexts(p.messages, sessionId)).toEqual(expected(12));
    // This editor did not ask for `_hermes/turn_ended`: the proxy consumes it.
    expect(p.messages.filter((m) => m.method === "_hermes/turn_ended")).toHaveLength(0);

    // The proxy re-initialized with the editor's params under its own id, then resumed after seq 3.
    const second = fx.service.received.filter((r) => r.connectionId === "conn-2").map((r) => r.message);
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
    fx.service.turn = { updates: 5, intervalMs: 10, cutAfter: 2, stopReason: "max_tokens" };

    p.send({ id: 20, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "short" }] } });
    await p.waitForStderr(/connection to the service closed/);
    p.send({ id: 21, method: "_test/echo", params: { queued: true } });

    const done = await p.waitFor((m) => m.id === 20 && "result" in m, WAIT_MS, "prompt answer");
    expect(done["result"]).toEqual({ stopReason: "max_tokens" });
    const echo = await p.waitFor((m) => m.id === 21, WAIT_MS, "queued request answer");
    expect(echo["result"]).toEqual({ echo: { queued: true } });
    expect(chunkTexts(p.messages, sessionId)).toEqual(expected(5));
    expect(responsesTo(p, 20)).toHaveLength(1);

    const order = fx.service.received.filter((r) => r.connectionId === "conn-2").map((r) => r.message["method"]);
    expect(order).toEqual(["initialize", "session/resume", "_test/echo"]);
  });

  it("never forwards a seq twice, even when the service replays more than was asked for", async () => {
    const { p, sessionId } = await startSession(INIT_PARAMS_TURN_ENDED);
    fx.service.replayEverything = true;
    fx.service.turn = { updates: 8, intervalMs: 30, cutAfter: 4, stopReason: "end_turn" };

    p.send({ id: 40, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "x" }] } });
    await p.waitFor((m) => m.id === 40 && "result" in m, WAIT_MS, "prompt answer");
    expect(chunkTexts(p.messages, sessionId)).toEqual(expected(8));
    expect(p.messages.filter((m) => m.method === "_hermes/turn_ended")).toHaveLength(1);
    expect(responsesTo(p, 40)).toHaveLength(1);
  });

  it("re-sends a prompt whose frame was lost with the connection, once, and answers it from the re-sent run", async () => {
    const { p, sessionId } = await startSession();
    fx.service.turn = { updates: 2, intervalMs: 5, stopReason: "end_turn" };
    // A finished turn first, so the resume reports a lastRequestId that is not the lost prompt's.
    const first = await p.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });
    fx.service.losePrompts = 1;

    p.send({ id: 50, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "two" }] } });
    const done = await p.waitFor((m) => m.id === 50 && !("method" in m), WAIT_MS, "prompt answer");

    expect(done["result"]).toEqual({ stopReason: "end_turn" });
    expect(responsesTo(p, 50)).toHaveLength(1);
    expect(chunkTexts(p.messages, sessionId)).toEqual(["chunk 1", "chunk 2", "chunk 1", "chunk 2"]);
    const prompts = fx.service.receivedMethods("session/prompt").map((r) => [r.connectionId, r.message["id"]]);
    expect(prompts).toEqual([
      ["conn-1", first.id],
      ["conn-1", 50],
      ["conn-2", 50],
    ]);
    // Re-sent after the re-attach, never before it.
    const order = fx.service.received.filter((r) => r.connectionId === "conn-2").map((r) => r.message["method"]);
    expect(order).toEqual(["initialize", "session/resume", "session/prompt"]);
    expect(p.stderr).toMatch(/never received prompt 50/);
  });

  it("answers a lost prompt with a clear error when its re-sent copy is lost too", async () => {
    const { p, sessionId } = await startSession();
    fx.service.losePrompts = 2;
    p.send({ id: 60, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "unlucky" }] } });
    const done = await p.waitFor((m) => m.id === 60, WAIT_MS, "prompt answer");
    expect(done["error"]).toMatchObject({ code: -32603, data: { reason: "prompt_lost" } });
    expect(fx.service.receivedMethods("session/prompt")).toHaveLength(2);
    expect(responsesTo(p, 60)).toHaveLength(1);
  });

  it("answers from lastStopReason when the idle service names this prompt as its last turn (turn_ended not replayed)", async () => {
    const { p, sessionId } = await startSession();
    // The turn finishes, but the socket is cut before the turn_ended and the response leave the service,
    // and the log entry is not replayed: only the turn state tells the outcome.
    fx.service.turn = { updates: 2, intervalMs: 5, cutAfter: 2, stopReason: "max_tokens" };
    fx.service.replayNothing = true;
    p.send({ id: 70, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "x" }] } });
    const done = await p.waitFor((m) => m.id === 70, WAIT_MS, "prompt answer");
    expect(done["result"]).toEqual({ stopReason: "max_tokens" });
    expect(fx.service.receivedMethods("session/prompt")).toHaveLength(1);
  });

  it("test hook HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES cuts its own socket once, after N frames from the service", async () => {
    const env = isolatedEnv({ HERMES_EDGE_TOKEN: "good-token", HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES: "4" });
    const p = fx.spawn(["--url", fx.service.url], env);
    await p.request("initialize", INIT_PARAMS);
    const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    const sessionId = (created["result"] as { sessionId: string }).sessionId;
    fx.service.turn = { updates: 6, intervalMs: 30, stopReason: "end_turn" };
    // Frames 3 and 4 are chunks 1 and 2: the cut comes mid-turn, from the proxy's side.
    const done = await p.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }, WAIT_MS);
    expect(done["result"]).toEqual({ stopReason: "end_turn" });
    expect(chunkTexts(p.messages, sessionId)).toEqual(expected(6));
    expect(p.stderr).toMatch(/test hook: dropping the connection after 4 frames/);
    expect(fx.service.receivedMethods("session/resume")).toHaveLength(1);
    expect(fx.service.receivedMethods("session/resume")[0]?.message).toMatchObject({ params: { _meta: { hermes: { afterSeq: 2 } } } });
  });

  it("survives a service restart between turns without replaying the first turn", async () => {
    const { p, sessionId } = await startSession();
    fx.service.turn = { updates: 2, intervalMs: 5, stopReason: "end_turn" };
    await p.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });

    await fx.service.stop();
    await p.waitForStderr(/connection to the service closed/);
    // Sent while the service is down: waits in the queue.
    p.send({ id: 30, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "two" }] } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await fx.service.listen();

    const done = await p.waitFor((m) => m.id === 30 && "result" in m, WAIT_MS, "second prompt answer");
    expect(done["result"]).toEqual({ stopReason: "end_turn" });
    // Turn one's two chunks, then turn two's two chunks: none repeated.
    expect(chunkTexts(p.messages, sessionId)).toEqual(["chunk 1", "chunk 2", "chunk 1", "chunk 2"]);
    const resume = fx.service.receivedMethods("session/resume").at(-1)?.message;
    expect(resume).toMatchObject({ params: { _meta: { hermes: { afterSeq: 3 } } } });
  });
});
