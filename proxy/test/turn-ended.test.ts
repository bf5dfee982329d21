import { describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { INIT_PARAMS, INIT_PARAMS_TURN_ENDED, isolatedEnv, WAIT_MS } from "./proxy-process.js";

const fx = useFakeService();

describe("_hermes/turn_ended opt-in", () => {
  it("asks the service for it on the editor's behalf, keeping the editor's own capabilities", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const sent = fx.service.receivedMethods("initialize")[0]?.message["params"];
    expect(sent).toEqual({
      ...INIT_PARAMS,
      clientCapabilities: { ...INIT_PARAMS.clientCapabilities, _meta: { hermes: { turnEnded: true } } },
    });
  });

  it("forwards it, once per turn, to an editor that asked for it itself", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS_TURN_ENDED);
    const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    const sessionId = (created["result"] as { sessionId: string }).sessionId;
    for (const id of [10, 11]) {
      p.send({ id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "hi" }] } });
      await p.waitFor((m) => m.id === id && "result" in m, WAIT_MS, `prompt ${id}`);
    }
    const ended = p.messages.filter((m) => m.method === "_hermes/turn_ended");
    expect(ended.map((m) => (m.params?.["_meta"] as { hermes: { requestId: number } }).hermes.requestId)).toEqual([10, 11]);
  });

  it("consumes it for an editor that did not ask, and still settles a prompt from it after a drop", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    const sessionId = (created["result"] as { sessionId: string }).sessionId;
    // The socket is cut mid-turn; the turn ends during the outage, and only the replayed turn_ended says how.
    fx.service.turn = { updates: 4, intervalMs: 10, cutAfter: 1, stopReason: "max_tokens" };
    p.send({ id: 20, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "x" }] } });
    const done = await p.waitFor((m) => m.id === 20, WAIT_MS, "prompt answer");
    expect(done["result"]).toEqual({ stopReason: "max_tokens" });
    expect(p.messages.filter((m) => m.method === "_hermes/turn_ended")).toEqual([]);
  });
});
