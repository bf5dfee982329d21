import { describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { INIT_PARAMS, isolatedEnv, ProxyProcess, WAIT_MS } from "./proxy-process.js";

const fx = useFakeService();

describe("--give-up-after", () => {
  it("fails pending and new requests while the service is gone, then recovers when it returns", async () => {
    const p = fx.spawn(["--url", fx.service.url, "--give-up-after", "1"], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    await p.request("initialize", INIT_PARAMS);
    const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
    const sessionId = (created["result"] as { sessionId: string }).sessionId;

    fx.service.turn = { updates: 50, intervalMs: 50, stopReason: "end_turn" };
    p.send({ id: 10, method: "session/prompt", params: { sessionId, prompt: [] } });
    await p.waitFor((m) => m.method === "session/update");
    const stoppedAt = Date.now();
    await fx.service.stop();
    // Sent once the proxy knows the socket is gone, so it waits in the queue.
    await p.waitForStderr(/connection to the service closed/);
    p.send({ id: 11, method: "_test/echo", params: { queued: true } });

    const failedPrompt = await p.waitFor((m) => m.id === 10, WAIT_MS, "prompt failure");
    const failedQueued = await p.waitFor((m) => m.id === 11, WAIT_MS, "queued failure");
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(900);
    for (const failed of [failedPrompt, failedQueued]) {
      expect(failed["error"]).toMatchObject({ code: -32603, message: expect.stringMatching(new RegExp(`service at ${fx.service.url} is unreachable since \\d{4}-`)) });
    }

    // Past the deadline, a new request is refused at once rather than queued:
    // the service is still down, so only the proxy can be answering.
    const immediate = await p.request("_test/echo", { late: true });
    expect(immediate["error"]).toMatchObject({ code: -32603 });

    await fx.service.listen();
    await p.waitForStderr(/connected to .*re-attached 1 session/, WAIT_MS);
    const recovered = await p.request("_test/echo", { back: true });
    expect(recovered["result"]).toEqual({ echo: { back: true } });
    expect(p.messages.filter((m) => m.id === 10)).toHaveLength(1);
  });
});
