import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { conversation, mockCalls, mockScript, sleep, TestClient, uniqueKey, type Frame, turnOf } from "./acp-test-client.js";

/** A cwd no other test uses, so `session/list { cwd }` sees only this test's sessions. */
const uniqueCwd = () => `/work/${crypto.randomUUID()}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function listAll(client: TestClient, params: Frame): Promise<{ pages: Frame[]; sessions: Frame[] }> {
  const pages: Frame[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await client.call("session/list", { ...params, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 10);
  return { pages, sessions: pages.flatMap((p) => p.sessions) };
}

describe("session/new", () => {
  it("creates a session whose id is a UUID and lists it with its cwd and additionalDirectories", async () => {
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const result = await client.call("session/new", { cwd, additionalDirectories: ["/work/lib-a", "/work/lib-b"], mcpServers: [] });
    expect(result.sessionId).toMatch(UUID);
    const listed = await client.call("session/list", { cwd });
    expect(listed.nextCursor).toBeNull();
    expect(listed.sessions).toHaveLength(1);
    const info = listed.sessions[0];
    expect(info).toEqual({
      sessionId: result.sessionId,
      cwd,
      additionalDirectories: ["/work/lib-a", "/work/lib-b"],
      title: null,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      archived: false,
      _meta: { hermes: { kind: "root", parentId: null, rootId: result.sessionId, status: "active", model: "gpt-4o-mini" } },
    });
    client.close();
  });

  it("gives the model the session's cwd and additionalDirectories in the system prompt", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "ok" }]);
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const { sessionId } = await client.call("session/new", { cwd, additionalDirectories: ["/srv/shared"], mcpServers: [] });
    const res = await client.prompt(sessionId, `hello [[mock:${key}]]`).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(1);
    const system = calls[0].body.messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain(`The workspace root is ${cwd}.`);
    expect(system.content).toContain("Additional directories: /srv/shared");
    client.close();
  });

  it("answers session/new before any other frame for the new session", async () => {
    const client = await TestClient.ready();
    const { id, response } = client.start("session/new", { cwd: uniqueCwd(), mcpServers: [] });
    const res = await response;
    const sessionId = res.result.sessionId as string;
    const respIndex = client.frames.findIndex((f) => f.id === id && !f.method);
    expect(client.frames.findIndex((f) => f.params?.sessionId === sessionId)).toBe(-1);
    expect(respIndex).toBeGreaterThanOrEqual(0);
    client.close();
  });

  it("returns -32602 for a relative additionalDirectories entry", async () => {
    const client = await TestClient.ready();
    const res = await client.request("session/new", { cwd: "/work/p", additionalDirectories: ["lib"], mcpServers: [] });
    expect(res.error.code).toBe(-32602);
    expect(res.error.data).toEqual(expect.arrayContaining([expect.objectContaining({ path: ["additionalDirectories", 0] })]));
    client.close();
  });
});

describe("session/list", () => {
  it("lists newest first", async () => {
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await client.newSession(cwd));
      await sleep(15);
    }
    const listed = await client.call("session/list", { cwd });
    expect(listed.sessions.map((s: Frame) => s.sessionId)).toEqual([...ids].reverse());
    client.close();
  });

  it("moves a session to the top when it is prompted", async () => {
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const older = await client.newSession(cwd);
    await sleep(15);
    const newer = await client.newSession(cwd);
    await sleep(15);
    await client.prompt(older, "bump").response;
    let order: string[] = [];
    for (let i = 0; i < 20; i++) {
      order = (await client.call("session/list", { cwd })).sessions.map((s: Frame) => s.sessionId);
      if (order[0] === older) break;
      await sleep(25);
    }
    expect(order).toEqual([older, newer]);
    client.close();
  });

  it("filters by cwd", async () => {
    const client = await TestClient.ready();
    const cwdA = uniqueCwd();
    const cwdB = uniqueCwd();
    const a1 = await client.newSession(cwdA);
    const a2 = await client.newSession(cwdA);
    const b1 = await client.newSession(cwdB);
    const inA = (await client.call("session/list", { cwd: cwdA })).sessions.map((s: Frame) => s.sessionId);
    const inB = (await client.call("session/list", { cwd: cwdB })).sessions.map((s: Frame) => s.sessionId);
    expect(inA.sort()).toEqual([a1, a2].sort());
    expect(inB).toEqual([b1]);
    const all = (await listAll(client, {})).sessions.map((s) => s.sessionId);
    expect(all).toEqual(expect.arrayContaining([a1, a2, b1]));
    client.close();
  });

  it("pages more than 50 sessions with an opaque cursor, without gaps or duplicates", async () => {
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const created = await Promise.all(Array.from({ length: 55 }, () => client.newSession(cwd)));
    expect(new Set(created).size).toBe(55);

    const first = await client.call("session/list", { cwd });
    expect(first.sessions).toHaveLength(50);
    expect(typeof first.nextCursor).toBe("string");
    const second = await client.call("session/list", { cwd, cursor: first.nextCursor });
    expect(second.sessions).toHaveLength(5);
    expect(second.nextCursor).toBeNull();

    const listed = [...first.sessions, ...second.sessions];
    const ids = listed.map((s: Frame) => s.sessionId as string);
    expect(new Set(ids).size).toBe(55);
    expect([...ids].sort()).toEqual([...created].sort());
    // Newest first across the page boundary: (updatedAt, id) strictly decreasing.
    for (let i = 1; i < listed.length; i++) {
      const [prev, cur] = [listed[i - 1], listed[i]];
      const ordered = prev.updatedAt > cur.updatedAt || (prev.updatedAt === cur.updatedAt && prev.sessionId > cur.sessionId);
      expect(ordered, `${prev.updatedAt}/${prev.sessionId} before ${cur.updatedAt}/${cur.sessionId}`).toBe(true);
    }
    client.close();
  });

  it("returns -32602 for an invalid cursor and keeps the connection", async () => {
    const client = await TestClient.ready();
    for (const cursor of ["not a cursor!", btoa(JSON.stringify({ x: 1 })), btoa("garbage")]) {
      const res = await client.request("session/list", { cursor });
      expect(res.error).toEqual({ code: -32602, message: "Invalid cursor", data: [{ path: ["cursor"], message: "invalid cursor" }] });
    }
    expect((await client.call("session/list", { cwd: uniqueCwd() })).sessions).toEqual([]);
    client.close();
  });

  it("returns -32602 for a relative cwd filter", async () => {
    const client = await TestClient.ready();
    const res = await client.request("session/list", { cwd: "work/p" });
    expect(res.error.code).toBe(-32602);
    expect(res.error.data).toEqual(expect.arrayContaining([expect.objectContaining({ path: ["cwd"] })]));
    client.close();
  });
});

describe("session/load and session/resume", () => {
  it("loads a session from another connection and answers with the idle turn state", async () => {
    const owner = await TestClient.ready();
    const cwd = uniqueCwd();
    const sessionId = await owner.newSession(cwd);
    const other = await TestClient.ready();
    const res = await other.request("session/load", { sessionId, cwd, mcpServers: [] });
    expect(turnOf(res.result)).toEqual({ state: "idle" });
    expect(conversation(other.logged(sessionId))).toEqual([]);
    owner.close();
    other.close();
  });

  it("resumes a session and reports the last stop reason", async () => {
    const owner = await TestClient.ready();
    const cwd = uniqueCwd();
    const sessionId = await owner.newSession(cwd);
    expect((await owner.prompt(sessionId, "hi there").response).result).toEqual({ stopReason: "end_turn" });
    const other = await TestClient.ready();
    const res = await other.request("session/resume", { sessionId, cwd });
    expect(turnOf(res.result)).toEqual({ state: "idle", lastStopReason: "end_turn" });
    owner.close();
    other.close();
  });

  it("uses and reports the additionalDirectories a load gives", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "ok" }]);
    const owner = await TestClient.ready();
    const cwd = uniqueCwd();
    const { sessionId } = await owner.call("session/new", { cwd, additionalDirectories: ["/srv/old"], mcpServers: [] });
    owner.close();
    const other = await TestClient.ready();
    await other.call("session/load", { sessionId, cwd, additionalDirectories: ["/srv/new-a", "/srv/new-b"], mcpServers: [] });
    await other.prompt(sessionId, `where? [[mock:${key}]]`).response;
    const [call] = await mockCalls(key);
    expect(call.body.messages[0].content).toContain("Additional directories: /srv/new-a, /srv/new-b");
    const listed = await other.call("session/list", { cwd });
    expect(listed.sessions.map((s: Frame) => s.additionalDirectories)).toEqual([["/srv/new-a", "/srv/new-b"]]);
    other.close();
  });

  it("activates no additional directories when a resume omits them (ACP: the list is complete)", async () => {
    const owner = await TestClient.ready();
    const cwd = uniqueCwd();
    const { sessionId } = await owner.call("session/new", { cwd, additionalDirectories: ["/srv/old"], mcpServers: [] });
    const other = await TestClient.ready();
    await other.call("session/resume", { sessionId, cwd });
    const listed = await other.call("session/list", { cwd });
    expect(listed.sessions.map((s: Frame) => s.additionalDirectories)).toEqual([[]]);
    other.close();
    owner.close();
  });

  it("returns -32002 for an unknown session id on load and on resume", async () => {
    const client = await TestClient.ready();
    const expected = { code: -32002, message: "Resource not found", data: { detail: "no such session" } };
    const load = await client.request("session/load", { sessionId: crypto.randomUUID(), cwd: "/w", mcpServers: [] });
    expect(load.error).toEqual(expected);
    const resume = await client.request("session/resume", { sessionId: crypto.randomUUID(), cwd: "/w" });
    expect(resume.error).toEqual(expected);
    client.close();
  });

  it("lets a resumed connection prompt the session", async () => {
    const owner = await TestClient.ready();
    const cwd = uniqueCwd();
    const sessionId = await owner.newSession(cwd);
    const other = await TestClient.ready();
    await other.call("session/resume", { sessionId, cwd });
    const res = await other.prompt(sessionId, "from the other side").response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    expect(other.agentText(sessionId)).toBe("Echo: from the other side");
    owner.close();
    other.close();
  });

  it("does not let a connection of the same tenant prompt a session it has not attached", async () => {
    const owner = await TestClient.ready();
    const sessionId = await owner.newSession(uniqueCwd());
    const stranger = await TestClient.ready();
    const res = await stranger.prompt(sessionId, "hi").response;
    expect(res.error.code).toBe(-32002);
    owner.close();
    stranger.close();
  });
});

describe("session/close", () => {
  it("stops a running turn, marks the session closed and keeps its history", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 400, chunkDelayMs: 20 }]);
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const sessionId = await client.newSession(cwd);
    const prompt = client.prompt(sessionId, `long story [[mock:${key}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    const closed = await client.request("session/close", { sessionId });
    expect(closed.result).toEqual({});
    expect((await prompt.response).result).toEqual({ stopReason: "cancelled" });
    const partial = client.agentText(sessionId);
    expect(partial.startsWith("t0")).toBe(true);
    expect(partial.split(" ").length).toBeLessThan(400);

    const listed = await client.call("session/list", { cwd });
    expect(listed.sessions[0]._meta.hermes.status).toBe("closed");

    // Closing let the connection go: it must load the session again to prompt it.
    const refused = await client.prompt(sessionId, "still there?").response;
    expect(refused.error.code).toBe(-32002);

    const other = await TestClient.ready();
    const loaded = await other.request("session/load", { sessionId, cwd, mcpServers: [] });
    expect(turnOf(loaded.result)).toEqual({ state: "idle", lastStopReason: "cancelled" });
    const replayed = other.updates(sessionId).map((f) => f.params.update);
    expect(replayed.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text)).toEqual([
      `long story [[mock:${key}]]`,
    ]);
    expect(other.agentText(sessionId)).toBe(partial);
    expect((await other.call("session/list", { cwd })).sessions[0]._meta.hermes.status).toBe("active");
    const again = await other.prompt(sessionId, "go on").response;
    expect(again.result).toEqual({ stopReason: "end_turn" });
    client.close();
    other.close();
  });

  it("closes an idle session", async () => {
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const sessionId = await client.newSession(cwd);
    expect(await client.call("session/close", { sessionId })).toEqual({});
    expect((await client.call("session/list", { cwd })).sessions.map((s: Frame) => [s.sessionId, s._meta.hermes.status])).toEqual([
      [sessionId, "closed"],
    ]);
    client.close();
  });

  it("returns -32002 when closing an unknown session", async () => {
    const client = await TestClient.ready();
    const res = await client.request("session/close", { sessionId: crypto.randomUUID() });
    expect(res.error).toEqual({ code: -32002, message: "Resource not found", data: { detail: "no such session" } });
    client.close();
  });
});

describe("session/delete", () => {
  it("removes the session from the index and its storage", async () => {
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const sessionId = await client.newSession(cwd);
    const keep = await client.newSession(cwd);
    await client.prompt(sessionId, "remember me").response;
    expect(await client.call("session/delete", { sessionId })).toEqual({});

    expect((await client.call("session/list", { cwd })).sessions.map((s: Frame) => s.sessionId)).toEqual([keep]);
    const rest = await SELF.fetch(`http://hermes.test/v1/sessions/${sessionId}`, { headers: { Authorization: "Bearer tok-alpha" } });
    expect(rest.status).toBe(404);
    const other = await TestClient.ready();
    const load = await other.request("session/load", { sessionId, cwd, mcpServers: [] });
    expect(load.error.code).toBe(-32002);
    expect(other.logged(sessionId)).toEqual([]);
    const prompt = await client.prompt(sessionId, "anyone?").response;
    expect(prompt.error.code).toBe(-32002);
    // ACP: deleting an unknown or already deleted session SHOULD succeed silently.
    const again = await client.request("session/delete", { sessionId });
    expect(again.result).toEqual({});
    expect((await client.request("session/delete", { sessionId: crypto.randomUUID() })).result).toEqual({});
    client.close();
    other.close();
  });

  it("deletes an index row whose object never kept a record (a session/new cut off halfway)", async () => {
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const sessionId = crypto.randomUUID();
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO sessions (id, tenant, cwd, additional_directories, model, mode, kind, root_id, status, created_at, updated_at) VALUES (?, 'alpha', ?, '[]', 'mock-model', 'default', 'root', ?, 'active', ?, ?)",
      ).bind(sessionId, cwd, sessionId, now, now),
      env.DB.prepare("INSERT INTO segments (id, acp_session_id, tenant, kind, root_id, compression_depth, created_at) VALUES (?, ?, 'alpha', 'root', ?, 0, ?)").bind(
        `seg-${sessionId}`,
        sessionId,
        `seg-${sessionId}`,
        now,
      ),
    ]);
    expect((await client.call("session/list", { cwd })).sessions.map((s: Frame) => s.sessionId)).toEqual([sessionId]);
    expect((await client.request("session/load", { sessionId, cwd, mcpServers: [] })).error.code).toBe(-32002);
    expect(await client.call("session/delete", { sessionId })).toEqual({});
    expect((await client.call("session/list", { cwd })).sessions).toEqual([]);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM segments WHERE acp_session_id = ?").bind(sessionId).first("n")).toBe(0);
    client.close();
  });

  it("cancels a running turn before deleting", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 400, chunkDelayMs: 20 }]);
    const client = await TestClient.ready();
    const cwd = uniqueCwd();
    const sessionId = await client.newSession(cwd);
    const prompt = client.prompt(sessionId, `long [[mock:${key}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    expect(await client.call("session/delete", { sessionId })).toEqual({});
    expect((await prompt.response).result).toEqual({ stopReason: "cancelled" });
    expect((await client.call("session/list", { cwd })).sessions).toEqual([]);
    client.close();
  });
});
