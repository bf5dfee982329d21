/**
 * Isolation between the users of one tenant: another user's session answers
 * every ACP method and REST route exactly as an unknown session does, is never
 * listed or found by search; a key without a user (the tenant's admin) keeps
 * seeing and managing every session, as before users.
 */
import { describe, expect, it } from "vitest";
import { mockScript, uniqueKey } from "./acp-test-client.js";
import { call, json } from "./admin-client.js";
import { clientOf, errorShape, load, team } from "./people-support.js";

const CWD = "/work/project";
const SUBAGENT = crypto.randomUUID();

/** Every session-scoped ACP method with params naming `sessionId`. */
const METHODS: [string, (sessionId: string) => unknown][] = [
  ["session/load", (sessionId) => ({ sessionId, cwd: CWD, mcpServers: [] })],
  ["session/resume", (sessionId) => ({ sessionId, cwd: CWD })],
  ["session/prompt", (sessionId) => ({ sessionId, prompt: [{ type: "text", text: "hi" }] })],
  ["session/fork", (sessionId) => ({ sessionId, cwd: CWD, mcpServers: [] })],
  ["session/set_mode", (sessionId) => ({ sessionId, modeId: "plan" })],
  ["session/set_config_option", (sessionId) => ({ sessionId, configId: "mode", value: "plan" })],
  ["session/set_model", (sessionId) => ({ sessionId, modelId: "x" })],
  ["session/close", (sessionId) => ({ sessionId })],
  ["session/delete", (sessionId) => ({ sessionId })],
  ["session/set_title", (sessionId) => ({ sessionId, title: "mine now" })],
  ["session/status", (sessionId) => ({ sessionId })],
  ["session/archive", (sessionId) => ({ sessionId })],
  ["session/unarchive", (sessionId) => ({ sessionId })],
  ["_hermes/subagents/interrupt", (sessionId) => ({ sessionId, subagentId: crypto.randomUUID() })],
  ["_hermes/subagents/pause", (sessionId) => ({ sessionId })],
  ["_hermes/subagents/resume", (sessionId) => ({ sessionId })],
  ["_hermes/session/share", (sessionId) => ({ sessionId, user: "bob", role: "driver" })],
  ["_hermes/session/unshare", (sessionId) => ({ sessionId, user: "bob" })],
];

/** Every session route: method, path. */
const ROUTES: [string, (id: string) => string, unknown?][] = [
  ["GET", (id) => `/v1/sessions/${id}`],
  ["GET", (id) => `/v1/sessions/${id}/history`],
  ["GET", (id) => `/v1/sessions/${id}/lineage`],
  ["GET", (id) => `/v1/sessions/${id}/subagents`],
  ["POST", (id) => `/v1/sessions/${id}/subagents/pause`],
  ["POST", (id) => `/v1/sessions/${id}/subagents/resume`],
  ["POST", (id) => `/v1/sessions/${id}/subagents/${SUBAGENT}/interrupt`],
  ["GET", (id) => `/v1/sessions/${id}/shares`],
  ["POST", (id) => `/v1/sessions/${id}/shares`, { user: "bob", role: "driver" }],
  ["DELETE", (id) => `/v1/sessions/${id}/shares/bob`],
  ["GET", (id) => `/v1/sessions/${id}/links`],
  ["POST", (id) => `/v1/sessions/${id}/links`, { role: "viewer" }],
  ["DELETE", (id) => `/v1/sessions/${id}/links/lnk_AAAAAAAAAAAAAAAA`],
];

describe("another user's session", () => {
  it("answers every ACP method exactly as an unknown session does, and changes nothing", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    const bob = await clientOf(keys.bob);
    for (const [method, params] of METHODS) {
      const foreign = await bob.request(method, params(sessionId));
      const unknown = await bob.request(method, params(crypto.randomUUID()));
      expect({ method, ...(errorShape(foreign) as object) }).toEqual({ method, ...(errorShape(unknown) as object) });
      if (foreign.error) expect(foreign.error.code, method).toBe(-32002);
    }
    // Still ada's, untouched: listed, not archived, titled as before, no shares.
    const [listed] = (await ada.call("session/list", {})).sessions;
    expect(listed).toMatchObject({ sessionId, title: null, archived: false, _meta: { hermes: { access: { owner: "ada", role: "owner" } } } });
    expect((await json(call(`/v1/sessions/${sessionId}/shares`, { token: keys.ada }))).shares).toEqual([]);
    expect((await ada.request("session/status", { sessionId })).result).toEqual({ status: "open" });
    ada.close();
    bob.close();
  });

  it("answers every REST route with the unknown session's 404", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    for (const [method, path, body] of ROUTES) {
      const foreign = await call(path(sessionId), { method, token: keys.bob, body });
      const unknown = await call(path(crypto.randomUUID()), { method, token: keys.bob, body });
      expect([method, path("ID"), foreign.status]).toEqual([method, path("ID"), 404]);
      expect(await foreign.json()).toEqual(await unknown.json());
    }
    expect((await call(`/v1/sessions/${sessionId}`, { token: keys.ada })).status).toBe(200);
    ada.close();
  });

  it("is not listed, on ACP or REST, nor found by /v1/search or session_search", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const word = `zebra${crypto.randomUUID().slice(0, 8)}`;
    const sessionId = await ada.newSession(CWD);
    const key = uniqueKey();
    await mockScript(key, [{ text: `noted ${word}` }]);
    await ada.prompt(sessionId, `remember ${word} [[mock:${key}]]`).response;
    const bob = await clientOf(keys.bob);
    await bob.newSession(CWD);
    expect((await bob.call("session/list", {})).sessions.map((s: { sessionId: string }) => s.sessionId)).not.toContain(sessionId);
    expect((await json(call("/v1/sessions", { token: keys.bob }))).sessions.map((s: { sessionId: string }) => s.sessionId)).not.toContain(sessionId);
    await expect.poll(async () => (await json(call(`/v1/search?q=${word}`, { token: keys.ada }))).results.length, { timeout: 15_000 }).toBe(1);
    expect((await json(call(`/v1/search?q=${word}`, { token: keys.bob }))).results).toEqual([]);
    // Shared, bob finds it.
    await ada.call("_hermes/session/share", { sessionId, user: "bob", role: "viewer" });
    expect((await json(call(`/v1/search?q=${word}`, { token: keys.bob }))).results.map((r: { sessionId: string }) => r.sessionId)).toEqual([sessionId]);
    ada.close();
    bob.close();
  });
});

describe("a key without a user", () => {
  it("is the tenant's admin: lists, opens and deletes every user's session, with no access field in its listing", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    const root = await clientOf(keys.admin);
    const [listed] = (await root.call("session/list", {})).sessions;
    expect(listed.sessionId).toBe(sessionId);
    expect(listed._meta.hermes.access).toBeUndefined();
    expect((await load(root, sessionId)).error).toBeUndefined();
    expect((await root.call("_hermes/session/share", { sessionId, user: "*", role: "viewer" })).shares).toEqual([
      { user: "*", role: "viewer", createdAt: expect.any(String) },
    ]);
    expect(await root.call("session/delete", { sessionId })).toEqual({});
    expect((await call(`/v1/sessions/${sessionId}`, { token: keys.ada })).status).toBe(404);
    ada.close();
    root.close();
  });

  it("a bootstrap token tenant/user:token belongs to that user", async () => {
    const alice = await clientOf("tok-alpha-ada");
    const sessionId = await alice.newSession(CWD);
    const listed = (await alice.call("session/list", {})).sessions.find((s: { sessionId: string }) => s.sessionId === sessionId);
    expect(listed._meta.hermes.access).toEqual({ owner: "ada", role: "owner" });
    // The same tenant's admin token sees it; its owner is recorded.
    expect((await json(call(`/v1/sessions/${sessionId}`, { token: "tok-alpha" }))).sessionId).toBe(sessionId);
    alice.close();
  });
});
