/**
 * Sharing a session: what a viewer and a driver may do, that the agent's
 * questions reach only the owner's and drivers' connections, who wrote each
 * prompt, unsharing letting a user's connections go, and viewer links
 * (create, open, revoke, expire).
 */
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mockScript, TestClient, uniqueKey, upgrade, type Frame } from "./acp-test-client.js";
import { call, json } from "./admin-client.js";
import { clientOf, editorOf, load, team } from "./people-support.js";
import { select, uniqueCwd } from "./scripted-editor.js";

const CWD = "/work/project";
const readOnly = (res: { error?: { code: number; data?: { reason?: string } } }) => [res.error?.code, res.error?.data?.reason];

describe("roles", () => {
  it("a viewer loads, watches and forks, and gets read_only for everything that would change the session", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    await ada.call("_hermes/session/share", { sessionId, user: "bob", role: "viewer" });
    const bob = await clientOf(keys.bob);
    const [listed] = (await bob.call("session/list", {})).sessions;
    expect(listed).toMatchObject({ sessionId, _meta: { hermes: { access: { owner: "ada", role: "viewer" } } } });
    expect((await load(bob, sessionId, "/elsewhere")).error).toBeUndefined();
    for (const [method, params] of [
      ["session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }],
      ["session/set_mode", { sessionId, modeId: "accept_edits" }],
      ["session/set_config_option", { sessionId, configId: "mode", value: "accept_edits" }],
      ["session/set_title", { sessionId, title: "x" }],
      ["session/archive", { sessionId }],
      ["session/delete", { sessionId }],
      ["_hermes/session/share", { sessionId, user: "cy", role: "viewer" }],
      ["_hermes/subagents/pause", { sessionId }],
    ] as const) {
      expect([method, ...readOnly(await bob.request(method, params))]).toEqual([method, -32001, "read_only"]);
    }
    const rest = await call(`/v1/sessions/${sessionId}/shares`, { method: "POST", token: keys.bob, body: { user: "cy", role: "viewer" } });
    expect([rest.status, (await json(rest)).error.data.reason]).toEqual([403, "read_only"]);
    expect((await call(`/v1/sessions/${sessionId}/history`, { token: keys.bob })).status).toBe(200);
    // Nothing changed: still active, unarchived, in mode default, shared with bob only.
    expect(await json(call(`/v1/sessions/${sessionId}`, { token: keys.ada }))).toMatchObject({ archived: false, cwd: CWD });
    expect((await json(call(`/v1/sessions/${sessionId}/shares`, { token: keys.ada }))).shares.map((s: { user: string }) => s.user)).toEqual(["bob"]);
    // A fork is bob's own session.
    const fork = await bob.call("session/fork", { sessionId, cwd: CWD, mcpServers: [] });
    const forkRow = await json(call(`/v1/sessions/${fork.sessionId}`, { token: keys.bob }));
    expect(forkRow._meta.hermes.access).toEqual({ owner: "bob", role: "owner" });
    expect((await call(`/v1/sessions/${fork.sessionId}`, { token: keys.ada })).status).toBe(404);
    // Closing only lets bob's own connection go; ada's session stays open.
    expect(await bob.call("session/close", { sessionId })).toEqual({});
    expect((await ada.request("session/status", { sessionId })).result).toEqual({ status: "open" });
    ada.close();
    bob.close();
  });

  it("a driver prompts and changes modes, but only the owner shares, archives or deletes", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    await ada.call("_hermes/session/share", { sessionId, user: "*", role: "driver" });
    const cy = await clientOf(keys.cy);
    expect((await load(cy, sessionId)).error).toBeUndefined();
    const key = uniqueKey();
    await mockScript(key, [{ text: "done by cy" }]);
    expect((await cy.prompt(sessionId, `go [[mock:${key}]]`).response).result).toEqual({ stopReason: "end_turn" });
    expect((await cy.request("session/set_mode", { sessionId, modeId: "accept_edits" })).error).toBeUndefined();
    expect(readOnly(await cy.request("session/delete", { sessionId }))).toEqual([-32001, "read_only"]);
    expect(readOnly(await cy.request("_hermes/session/unshare", { sessionId, user: "*" }))).toEqual([-32001, "read_only"]);
    expect((await call(`/v1/sessions/${sessionId}/links`, { method: "POST", token: keys.cy, body: { role: "viewer" } })).status).toBe(403);
    // The prompt's author is on its user_message_chunk, as ada's client sees it live.
    const chunk = ada.updates(sessionId).find((f) => f.params.update.sessionUpdate === "user_message_chunk");
    expect(chunk?.params.update._meta).toEqual({ hermes: { author: { user: "cy" } } });
    ada.close();
    cy.close();
  });
});

describe("sub-agents", () => {
  it("belong to their parent's owner and follow its shares", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    const child = uniqueKey("child");
    await mockScript(child, [{ text: "child done" }]);
    const parent = uniqueKey("parent");
    await mockScript(parent, [{ toolCalls: [{ id: "d1", name: "delegate_task", arguments: { tasks: [{ goal: `work [[mock:${child}]]` }] } }] }, { text: "all done" }]);
    await ada.prompt(sessionId, `[[mock:${parent}]] delegate`, 20_000).response;
    const { subagents } = await json(call(`/v1/sessions/${sessionId}/subagents`, { token: keys.ada }));
    const subagentId = subagents[0].sessionId as string;
    expect((await json(call(`/v1/sessions/${subagentId}`, { token: keys.ada })))._meta.hermes.access).toEqual({ owner: "ada", role: "owner" });
    expect((await call(`/v1/sessions/${subagentId}/history`, { token: keys.bob })).status).toBe(404);
    const bob = await clientOf(keys.bob);
    expect((await load(bob, subagentId)).error.code).toBe(-32002);
    await ada.call("_hermes/session/share", { sessionId, user: "bob", role: "viewer" });
    expect((await call(`/v1/sessions/${subagentId}/history`, { token: keys.bob })).status).toBe(200);
    expect((await load(bob, subagentId)).error).toBeUndefined();
    // Sharing a sub-agent on its own is refused: it follows its parent.
    expect((await ada.request("_hermes/session/share", { sessionId: subagentId, user: "cy", role: "viewer" })).error.code).toBe(-32602);
    ada.close();
    bob.close();
  });
});

describe("questions", () => {
  it("reach the owner and drivers, never a viewer attached later", async () => {
    const { keys } = await team();
    const cwd = uniqueCwd();
    const owner = await editorOf(keys.ada);
    const sessionId = await owner.newSession(cwd);
    await owner.client.call("_hermes/session/share", { sessionId, user: "bob", role: "viewer" });
    await owner.client.call("_hermes/session/share", { sessionId, user: "cy", role: "driver" });
    const driver = await editorOf(keys.cy);
    await driver.client.call("session/load", { sessionId, cwd, mcpServers: [] });
    const viewer = await editorOf(keys.bob);
    await viewer.client.call("session/load", { sessionId, cwd, mcpServers: [] });
    driver.permission = () => select("allow_once");
    const write = (id: string, file: string) => [{ toolCalls: [{ id, name: "write_file", arguments: { path: `${cwd}/${file}`, content: id } }] }, { text: "done" }];
    const key = uniqueKey();
    await driver.turn(sessionId, key, [...write("w1", "a.ts"), ...write("w2", "b.ts")]);
    expect(driver.methods()).toEqual(["fs/read_text_file", "session/request_permission", "fs/write_text_file"]);
    expect(viewer.requests()).toEqual([]);
    // The viewer saw the turn live, all the same.
    await expect.poll(() => viewer.client.agentText(sessionId)).toContain("done");
    // With only the owner and the viewer left, the owner is asked.
    driver.client.close();
    await owner.turn(sessionId, key, null);
    expect(owner.methods()).toEqual(["fs/read_text_file", "session/request_permission", "fs/write_text_file"]);
    expect(viewer.requests()).toEqual([]);
    owner.client.close();
    viewer.client.close();
  });
});

describe("unsharing", () => {
  it("lets the user's open connections go: no more updates, and their next request is the unknown session's", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    await call(`/v1/sessions/${sessionId}/shares`, { method: "POST", token: keys.ada, body: { user: "bob", role: "driver" } });
    const bob = await clientOf(keys.bob);
    expect((await load(bob, sessionId)).error).toBeUndefined();
    const removed = await call(`/v1/sessions/${sessionId}/shares/bob`, { method: "DELETE", token: keys.ada });
    expect((await json(removed)).shares).toEqual([]);
    const before = bob.updates(sessionId).length;
    const key = uniqueKey();
    await mockScript(key, [{ text: "private again" }]);
    await ada.prompt(sessionId, `go [[mock:${key}]]`).response;
    expect(bob.updates(sessionId).length).toBe(before);
    expect((await bob.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })).error.code).toBe(-32002);
    ada.close();
    bob.close();
  });
});

describe("viewer links", () => {
  async function linkOf(token: string, sessionId: string, body: unknown = { role: "viewer" }) {
    const res = await call(`/v1/sessions/${sessionId}/links`, { method: "POST", token, body });
    expect(res.status).toBe(201);
    const link = await json(res);
    const fragment = new URLSearchParams(new URL(link.url).hash.slice(1));
    return { ...link, token: fragment.get("link")!, fragment } as Frame & { token: string; fragment: URLSearchParams };
  }

  it("opens the session read-only for whoever holds it, keeps only its hash, and lists it", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    const other = await ada.newSession(CWD);
    const link = await linkOf(keys.ada, sessionId);
    expect(link).toMatchObject({ id: expect.stringMatching(/^lnk_/), role: "viewer", expiresAt: expect.any(String) });
    expect(link.fragment.get("session")).toBe(sessionId);
    const stored = await env.DB.prepare("SELECT * FROM session_links WHERE id = ?").bind(link.id).first();
    expect(JSON.stringify(stored)).not.toContain(link.token.split(".")[1]);
    expect((await json(call("/v1/link", { token: link.token }))).sessionId).toBe(sessionId);

    const viewer = await TestClient.ready({ protocols: ["acp", `hermes-edge-token.${link.token}`], token: null });
    expect((await load(viewer, sessionId)).error).toBeUndefined();
    expect((await viewer.call("session/list", {})).sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([sessionId]);
    expect((await load(viewer, other)).error.code).toBe(-32002);
    expect(readOnly(await viewer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "x" }] }))).toEqual([-32001, "read_only"]);
    expect(readOnly(await viewer.request("session/new", { cwd: CWD, mcpServers: [] }))).toEqual([-32001, "read_only"]);
    expect((await call("/v1/search?q=x", { token: link.token })).status).toBe(403);
    // Live: the owner's turn reaches the viewer.
    const key = uniqueKey();
    await mockScript(key, [{ text: "watch this" }]);
    await ada.prompt(sessionId, `go [[mock:${key}]]`).response;
    await expect.poll(() => viewer.agentText(sessionId)).toContain("watch this");
    const listed = await json(call(`/v1/sessions/${sessionId}/links`, { token: keys.ada }));
    expect(listed.links).toEqual([expect.objectContaining({ id: link.id, status: "active", createdBy: "ada" })]);
    ada.close();
    viewer.close();
  });

  it("once revoked, refuses new viewers at once and closes open ones at the next check, saying so", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    const link = await linkOf(keys.ada, sessionId);
    const viewer = await TestClient.ready({ token: link.token });
    await load(viewer, sessionId);
    const stub = env.CONNECTION.get(env.CONNECTION.idFromString(viewer.connectionId));
    const closed = new Promise<CloseEvent>((resolve) => viewer.ws.addEventListener("close", resolve));
    expect((await call(`/v1/sessions/${sessionId}/links/${link.id}`, { method: "DELETE", token: keys.ada })).status).toBe(200);
    const refused = await upgrade({ token: link.token });
    expect([refused.status, (await refused.json() as { error: { data: { reason: string } } }).error.data.reason]).toEqual([401, "revoked"]);
    expect((await json(call("/v1/link", { token: link.token }))).error.message).toBe("this link was revoked");
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const event = await closed;
    expect([event.code, event.reason]).toEqual([4403, "link revoked"]);
    ada.close();
  });

  it("an expired link says so", async () => {
    const { keys } = await team();
    const ada = await clientOf(keys.ada);
    const sessionId = await ada.newSession(CWD);
    const link = await linkOf(keys.ada, sessionId, { role: "viewer", expiresIn: 60 });
    expect(Date.parse(link.expiresAt) - Date.now()).toBeLessThanOrEqual(60_000);
    await env.DB.prepare("UPDATE session_links SET expires_at = ? WHERE id = ?").bind(Date.now() - 1, link.id).run();
    const res = await call("/v1/link", { token: link.token });
    expect([res.status, (await json(res)).error]).toEqual([401, expect.objectContaining({ message: "this link has expired", data: { reason: "expired" } })]);
    expect((await call(`/v1/sessions/${sessionId}/links`, { method: "POST", token: keys.ada, body: { role: "driver" } })).status).toBe(400);
    ada.close();
  });
});
