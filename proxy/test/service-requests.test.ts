import { describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { INIT_PARAMS, isolatedEnv, type Message, WAIT_MS } from "./proxy-process.js";

const fx = useFakeService();

async function startSession(args: string[] = []) {
  const p = fx.spawn(["--url", fx.service.url, "--log-level", "debug", ...args], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
  await p.request("initialize", INIT_PARAMS);
  const created = await p.request("session/new", { cwd: "/project", mcpServers: [] });
  return { p, sessionId: (created["result"] as { sessionId: string }).sessionId };
}

const permissionParams = (sessionId: string) => ({
  sessionId,
  toolCall: { toolCallId: "t1", title: "write file" },
  options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
});
const copiesOf = (messages: readonly Message[], id: string) => messages.filter((m) => m.id === id && "method" in m);
const allow = (id: string) => ({ id, result: { outcome: { outcome: "selected", optionId: "allow" } } });

describe("the service's requests across a reconnect", () => {
  it("gives the editor a request once, though the service sends it again after the re-attach, and the answer reaches the service", async () => {
    const { p, sessionId } = await startSession();
    const answered = fx.service.askSession(sessionId, "hermes:perm:1", "session/request_permission", permissionParams(sessionId));
    await p.waitFor((m) => m.id === "hermes:perm:1", WAIT_MS, "permission request");

    fx.service.dropConnections();
    await p.waitForStderr(/connected to .*re-attached 1 session/, WAIT_MS);
    // The re-sent copy was held back: it came after the resume, before anything the editor could see.
    await p.request("_test/echo", { after: true });
    expect(copiesOf(p.messages, "hermes:perm:1")).toHaveLength(1);
    expect(p.stderr).toMatch(/hermes:perm:1.*one the editor has already/);

    p.send(allow("hermes:perm:1"));
    expect(await answered).toMatchObject({ result: { outcome: { optionId: "allow" } } });
  });

  it("holds an answer the editor gives while the proxy re-attaches until the session is resumed, so the service does not ignore it", async () => {
    const { p, sessionId } = await startSession();
    const answered = fx.service.askSession(sessionId, "hermes:perm:2", "session/request_permission", permissionParams(sessionId));
    await p.waitFor((m) => m.id === "hermes:perm:2", WAIT_MS, "permission request");

    fx.service.resumeDelays.set(sessionId, 400);
    fx.service.dropConnections();
    // The editor answers while the new connection waits for its session/resume.
    const deadline = Date.now() + 10_000;
    while (!fx.service.receivedMethods("session/resume").length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    p.send(allow("hermes:perm:2"));

    expect(await answered).toMatchObject({ id: "hermes:perm:2", result: { outcome: { optionId: "allow" } } });
    expect(fx.service.ignoredAnswers).toEqual([]);
    expect(copiesOf(p.messages, "hermes:perm:2")).toHaveLength(1);
    const order = fx.service.received.filter((r) => r.connectionId === "conn-2").map((r) => r.message["method"] ?? r.message["id"]);
    expect(order.slice(0, 3)).toEqual(["initialize", "session/resume", "hermes:perm:2"]);
    // The service's copy of the request, sent as it answers session/resume, may reach the proxy after the held
    // answer went out: the proxy then sends the answer once more (a service restarted since may ask only now),
    // and the service, already answered, ignores it.
    expect(order.slice(3).every((entry) => entry === "hermes:perm:2") && order.length <= 4).toBe(true);
  });

  it("keeps an answer given during an outage past --give-up-after, and delivers it once the service is back", async () => {
    const { p, sessionId } = await startSession(["--give-up-after", "1"]);
    const answered = fx.service.askSession(sessionId, "hermes:perm:3", "session/request_permission", permissionParams(sessionId));
    await p.waitFor((m) => m.id === "hermes:perm:3", WAIT_MS, "permission request");
    await fx.service.stop();
    await p.waitForStderr(/connection to the service closed/);
    p.send(allow("hermes:perm:3"));
    await p.waitForStderr(/unreachable since/, WAIT_MS);

    await fx.service.listen();
    expect(await answered).toMatchObject({ result: { outcome: { optionId: "allow" } } });
    expect(copiesOf(p.messages, "hermes:perm:3")).toHaveLength(1);
  });
});

describe("a request the service withdraws", () => {
  it("is passed on as $/cancel_request and forgotten: the proxy keeps no entry for it, so the same id is new again", async () => {
    const { p, sessionId } = await startSession();
    void fx.service.askSession(sessionId, "hermes:perm:4", "session/request_permission", permissionParams(sessionId));
    await p.waitFor((m) => m.id === "hermes:perm:4", WAIT_MS, "permission request");
    fx.service.notifyClient("$/cancel_request", { requestId: "hermes:perm:4" });
    await p.waitFor((m) => m["method"] === "$/cancel_request", WAIT_MS, "the withdrawal");
    // Only an id the proxy has forgotten reaches the editor a second time.
    void fx.service.askSession(sessionId, "hermes:perm:4", "session/request_permission", permissionParams(sessionId));
    await p.request("_test/echo", { after: true });
    expect(copiesOf(p.messages, "hermes:perm:4")).toHaveLength(2);
  });
});

describe("the service's frame limit", () => {
  it("answers an editor request the service refused as too large (its error has id null) with that error, under the request's id", async () => {
    const { p, sessionId } = await startSession();
    fx.service.maxFrameBytes = 4096;
    const huge = await p.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "x".repeat(10_000) }] });
    expect(huge["error"]).toMatchObject({ code: -32600, data: { limitBytes: 4096, frameBytes: expect.any(Number) } });
    expect(p.messages.filter((m) => m.id === null)).toEqual([]);
    // The connection carries on.
    expect((await p.request("_test/echo", { small: true }))["result"]).toEqual({ echo: { small: true } });
  });
});
