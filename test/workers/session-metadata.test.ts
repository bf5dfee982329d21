/**
 * The unstable session-metadata methods: `session/set_title`, `session/status`,
 * `session/archive`, `session/unarchive` and the `archived` filter of
 * `session/list`, with every unknown-session and bad-param case.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mockScript, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";

const uniqueCwd = () => `/work/${crypto.randomUUID()}`;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

async function fresh(token?: string): Promise<{ client: TestClient; sessionId: string; cwd: string }> {
  const client = await TestClient.ready(token ? { token } : {});
  const cwd = uniqueCwd();
  return { client, sessionId: await client.newSession(cwd), cwd };
}

const listed = async (client: TestClient, params: Frame) => (await client.call("session/list", params)).sessions as Frame[];
const ids = (sessions: Frame[]) => sessions.map((s) => s.sessionId);

async function restTitle(sessionId: string): Promise<string | null> {
  const res = await SELF.fetch(`http://hermes.test/v1/sessions/${sessionId}`, { headers: { Authorization: "Bearer tok-alpha" } });
  return ((await res.json()) as Frame).title;
}

function expectNotFound(res: Frame, sessionId: string): void {
  expect(res.error).toEqual({ code: -32002, message: "Resource not found", data: { detail: "no such session", sessionId } });
}

const METHODS = ["session/set_title", "session/status", "session/archive", "session/unarchive"] as const;
const paramsFor = (method: string, sessionId: string) => (method === "session/set_title" ? { sessionId, title: "T" } : { sessionId });

describe("capabilities", () => {
  it("advertises sessionCapabilities.title, .status and .archive along with list", async () => {
    const client = await TestClient.open();
    const init = await client.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentCapabilities.sessionCapabilities).toMatchObject({ list: {}, title: {}, status: {}, archive: {} });
    client.close();
  });
});

describe.each(METHODS)("%s with a session it cannot have", (method) => {
  it("answers -32002 with the sessionId in data for an unknown session and for another tenant's", async () => {
    const { client } = await fresh();
    expectNotFound(await client.request(method, paramsFor(method, UNKNOWN)), UNKNOWN);
    const theirs = await fresh("tok-beta");
    expectNotFound(await client.request(method, paramsFor(method, theirs.sessionId)), theirs.sessionId);
    // Nothing happened to the other tenant's session.
    expect((await theirs.client.call("session/status", { sessionId: theirs.sessionId })).status).toBe("open");
    expect(ids(await listed(theirs.client, { cwd: theirs.cwd }))).toEqual([theirs.sessionId]);
    client.close();
    theirs.client.close();
  });

  it.each([
    ["no params", undefined],
    ["no sessionId", {}],
    ["a numeric sessionId", { sessionId: 42 }],
    ["an empty sessionId", { sessionId: "" }],
  ])("answers -32602 for %s", async (_name, params) => {
    const client = await TestClient.ready();
    const res = await client.request(method, method === "session/set_title" && params ? { ...params, title: "T" } : params);
    expect(res.error.code).toBe(-32602);
    client.close();
  });
});

describe("session/set_title", () => {
  it("stores the title (normalized), tells attached editors, and a connection need not be attached to set it", async () => {
    const { client, sessionId, cwd } = await fresh();
    const other = await TestClient.ready();
    const update = client.next((f) => f.params?.update?.sessionUpdate === "session_info_update");
    expect(await other.call("session/set_title", { sessionId, title: "  Refactor the\n  session core  " })).toEqual({ title: "Refactor the session core" });
    expect((await update).params.update).toMatchObject({ title: "Refactor the session core", updatedAt: expect.any(String) });
    expect((await listed(client, { cwd }))[0]!.title).toBe("Refactor the session core");
    expect(await restTitle(sessionId)).toBe("Refactor the session core");
    const long = await other.call("session/set_title", { sessionId, title: "x".repeat(500) });
    expect(long.title).toHaveLength(200);
    expect(other.logged(sessionId)).toEqual([]);
    client.close();
    other.close();
  });

  it("stops automatic titling: the first prompt no longer names the session", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "ok" }]);
    const { client, sessionId, cwd } = await fresh();
    await client.call("session/set_title", { sessionId, title: "Chosen by the user" });
    expect((await client.prompt(sessionId, `a prompt that would become the title [[mock:${key}]]`).response).result).toEqual({ stopReason: "end_turn" });
    expect((await listed(client, { cwd }))[0]!.title).toBe("Chosen by the user");
    const titles = client.updates(sessionId).filter((f) => f.params.update.sessionUpdate === "session_info_update" && "title" in f.params.update);
    expect(titles.map((f) => f.params.update.title)).toEqual(["Chosen by the user"]);
    client.close();
  });

  it("wins over the automatic title of a turn that is still waiting for the model's first output", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "ok", firstTokenDelayMs: 800 }]);
    const { client, sessionId, cwd } = await fresh();
    const turn = client.prompt(sessionId, `a prompt that would become the title [[mock:${key}]]`);
    // The automatic title is announced at once; its index write waits for the first output.
    await client.next((f) => f.params?.update?.sessionUpdate === "session_info_update");
    await client.call("session/set_title", { sessionId, title: "Chosen while it ran" });
    expect((await turn.response).result).toEqual({ stopReason: "end_turn" });
    expect((await listed(client, { cwd }))[0]!.title).toBe("Chosen while it ran");
    expect(await restTitle(sessionId)).toBe("Chosen while it ran");
    client.close();
  });

  it.each([
    ["no title", {}],
    ["a null title", { title: null }],
    ["a numeric title", { title: 7 }],
    ["an empty title", { title: "" }],
    ["a title of only whitespace", { title: " \n\t " }],
  ])("answers -32602 for %s and keeps the old title", async (_name, extra) => {
    const { client, sessionId, cwd } = await fresh();
    await client.call("session/set_title", { sessionId, title: "Kept" });
    const res = await client.request("session/set_title", { sessionId, ...extra });
    expect(res.error.code).toBe(-32602);
    expect((await listed(client, { cwd }))[0]!.title).toBe("Kept");
    client.close();
  });
});

describe("session/status", () => {
  it("says open while the session is active and saved once closed, archived or never loaded again", async () => {
    const { client, sessionId, cwd } = await fresh();
    expect(await client.call("session/status", { sessionId })).toEqual({ status: "open" });
    await client.call("session/close", { sessionId });
    expect(await client.call("session/status", { sessionId })).toEqual({ status: "saved" });
    await client.call("session/load", { sessionId, cwd, mcpServers: [] });
    expect(await client.call("session/status", { sessionId })).toEqual({ status: "open" });
    await client.call("session/archive", { sessionId });
    expect(await client.call("session/status", { sessionId })).toEqual({ status: "saved" });
    client.close();
  });

  it("says open for an archived session that was loaded again without unarchiving it", async () => {
    const { client, sessionId, cwd } = await fresh();
    await client.call("session/archive", { sessionId });
    expect((await client.request("session/load", { sessionId, cwd, mcpServers: [] })).error).toBeUndefined();
    expect(await client.call("session/status", { sessionId })).toEqual({ status: "open" });
    client.close();
  });

  it("has no side effects: it neither reopens a session nor attaches the asking connection", async () => {
    const { client, sessionId, cwd } = await fresh();
    await client.call("session/close", { sessionId });
    const asker = await TestClient.ready();
    const before = (await listed(client, { cwd }))[0];
    expect(await asker.call("session/status", { sessionId })).toEqual({ status: "saved" });
    expect(await asker.call("session/status", { sessionId })).toEqual({ status: "saved" });
    expect((await listed(client, { cwd }))[0]).toEqual(before);
    expect((await asker.prompt(sessionId, "may I?").response).error.code).toBe(-32002);
    expect(asker.logged(sessionId)).toEqual([]);

    const open = await fresh();
    expect((await asker.call("session/status", { sessionId: open.sessionId })).status).toBe("open");
    expect((await asker.prompt(open.sessionId, "and this one?").response).error.code).toBe(-32002);
    for (const c of [client, asker, open.client]) c.close();
  });
});

describe("session/archive and session/unarchive", () => {
  it("closes an active session first, cancelling its turn, then hides it from session/list", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 400, chunkDelayMs: 20 }]);
    const { client, sessionId, cwd } = await fresh();
    const keep = await client.newSession(cwd);
    const prompt = client.prompt(sessionId, `long [[mock:${key}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    expect(await client.call("session/archive", { sessionId })).toEqual({});
    expect((await prompt.response).result).toEqual({ stopReason: "cancelled" });
    expect(ids(await listed(client, { cwd }))).toEqual([keep]);
    expect((await listed(client, { cwd })).every((s) => s.archived === false)).toBe(true);
    const only = await listed(client, { cwd, archived: "only" });
    expect(ids(only)).toEqual([sessionId]);
    expect(only[0]).toMatchObject({ archived: true, _meta: { hermes: { status: "closed" } } });
    expect(ids(await listed(client, { cwd, archived: "include" })).sort()).toEqual([keep, sessionId].sort());
    // The connection was let go: it must load the session again to prompt it.
    expect((await client.prompt(sessionId, "still there?").response).error.code).toBe(-32002);
    client.close();
  });

  it("succeeds when archiving twice and when unarchiving a session that is not archived", async () => {
    const { client, sessionId, cwd } = await fresh();
    expect(await client.call("session/unarchive", { sessionId })).toEqual({});
    expect(await client.call("session/archive", { sessionId })).toEqual({});
    expect(await client.call("session/archive", { sessionId })).toEqual({});
    expect(ids(await listed(client, { cwd, archived: "only" }))).toEqual([sessionId]);
    client.close();
  });

  it("unarchive puts the session back in the default list without loading it; load works after", async () => {
    const { client, sessionId, cwd } = await fresh();
    await client.call("session/archive", { sessionId });
    expect(await listed(client, { cwd })).toEqual([]);
    expect(await client.call("session/unarchive", { sessionId })).toEqual({});
    expect(await client.call("session/unarchive", { sessionId })).toEqual({});
    const back = await listed(client, { cwd });
    expect(ids(back)).toEqual([sessionId]);
    expect(back[0]).toMatchObject({ archived: false, _meta: { hermes: { status: "closed" } } });
    expect(await client.call("session/status", { sessionId })).toEqual({ status: "saved" });
    const loaded = await client.request("session/load", { sessionId, cwd, mcpServers: [] });
    expect(loaded.error).toBeUndefined();
    expect(await client.call("session/status", { sessionId })).toEqual({ status: "open" });
    client.close();
  });

  it.each([
    ["an unknown value", "bogus"],
    ["an extension value it does not support", "_mine"],
    ["a non-string", true],
  ])("session/list answers -32602 for an archived filter with %s", async (_name, archived) => {
    const client = await TestClient.ready();
    expect((await client.request("session/list", { archived })).error.code).toBe(-32602);
    client.close();
  });

  it("session/list treats an omitted or null archived filter as exclude, before pagination", async () => {
    const { client, sessionId, cwd } = await fresh();
    const other = await client.newSession(cwd);
    await client.call("session/archive", { sessionId });
    expect(ids(await listed(client, { cwd, archived: null }))).toEqual([other]);
    expect(ids(await listed(client, { cwd, archived: "exclude" }))).toEqual([other]);
    const rest = async (extra = "") => {
      const res = await SELF.fetch(`http://hermes.test/v1/sessions?cwd=${encodeURIComponent(cwd)}${extra}`, { headers: { Authorization: "Bearer tok-alpha" } });
      return { status: res.status, body: (await res.json()) as { sessions?: Frame[]; error?: { code: number } } };
    };
    expect(ids((await rest()).body.sessions!)).toEqual([other]);
    expect(ids((await rest("&archived=only")).body.sessions!)).toEqual([sessionId]);
    expect(ids((await rest("&archived=include")).body.sessions!).sort()).toEqual([sessionId, other].sort());
    const bad = await rest("&archived=maybe");
    expect([bad.status, bad.body.error?.code]).toEqual([400, -32602]);
    client.close();
  });
});
