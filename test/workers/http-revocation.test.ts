import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { freshAddress, TestClient } from "./acp-test-client.js";
import { admin, call, createKey, json, uniqueTenant } from "./admin-client.js";
import { keyFor } from "./people-support.js";

const INITIALIZE = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } };

function acp(method: "POST" | "GET", token: string, connectionId?: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, "CF-Connecting-IP": freshAddress() };
  if (connectionId) headers["Acp-Connection-Id"] = connectionId;
  if (method === "GET") headers.Accept = "text/event-stream";
  else headers["Content-Type"] = "application/json";
  return SELF.fetch("http://hermes.test/acp", { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** An HTTP connection with its connection stream open, read up to the stream's opening comment. */
async function openConnection(token: string) {
  const init = await acp("POST", token, undefined, INITIALIZE);
  expect(init.status).toBe(200);
  await init.text();
  const connectionId = init.headers.get("Acp-Connection-Id")!;
  const stream = await acp("GET", token, connectionId);
  expect(stream.status).toBe(200);
  const reader = stream.body!.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toContain(": open");
  const stub = env.CONNECTION.get(env.CONNECTION.idFromString(connectionId));
  return { connectionId, reader, stub };
}

/** Resolves true once the stream ends (events before that, such as earlier answers, are read past). */
async function ends(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
  for (;;) if ((await reader.read()).done) return true;
}

const refusal = async (res: Response) => [res.status, await res.json()];

describe("revocation of a live Streamable HTTP connection", () => {
  it("ends the revoked key's SSE stream at the next check, and refuses the connection afterwards with the key's 401", async () => {
    const tenant = uniqueTenant();
    const { id, key } = await createKey(tenant);
    const other = (await createKey(tenant)).key;
    const { connectionId, reader, stub } = await openConnection(key);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).not.toBeNull();

    // While the key is active, a check keeps the stream and schedules the next one.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).not.toBeNull();
    expect((await acp("POST", key, connectionId, { jsonrpc: "2.0", id: 1, method: "session/list", params: {} })).status).toBe(202);

    expect((await admin(`/keys/${id}`, { method: "DELETE" })).status).toBe(200);
    const ended = ends(reader);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await ended).toBe(true);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBeNull();

    const keyRefusal = { error: { code: -32000, message: "key revoked", data: { reason: "revoked" } } };
    // The revoked key is refused by the Worker; another key of the tenant by the connection, with the same answer.
    expect(await refusal(await acp("POST", key, connectionId, { jsonrpc: "2.0", id: 2, method: "session/list", params: {} }))).toEqual([401, keyRefusal]);
    expect(await refusal(await acp("POST", other, connectionId, { jsonrpc: "2.0", id: 3, method: "session/list", params: {} }))).toEqual([401, keyRefusal]);
    const reopened = await acp("GET", other, connectionId);
    expect(reopened.headers.get("WWW-Authenticate")).toBe('Bearer realm="hermes-edge"');
    expect(await refusal(reopened)).toEqual([401, keyRefusal]);
  });

  it("keeps watching a connection whose streams all closed once one opens again", async () => {
    const { id, key } = await createKey(uniqueTenant());
    const { connectionId, reader, stub } = await openConnection(key);
    await reader.cancel();
    // The next event written finds the client gone; nothing listening, the check stops, and the next stream starts it again.
    expect((await acp("POST", key, connectionId, { jsonrpc: "2.0", id: 1, method: "session/list", params: {} })).status).toBe(202);
    await expect.poll(async () => {
      await runDurableObjectAlarm(stub);
      return runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    }).toBeNull();
    const again = (await acp("GET", key, connectionId)).body!.getReader();
    await again.read();
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).not.toBeNull();
    expect((await admin(`/keys/${id}`, { method: "DELETE" })).status).toBe(200);
    const ended = ends(again);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await ended).toBe(true);
  });

  it("ends a revoked viewer link's stream and answers its connection with the link's 401", async () => {
    const tenant = uniqueTenant();
    const ada = await keyFor(tenant, "ada");
    const owner = await TestClient.ready({ token: ada });
    const sessionId = await owner.newSession("/work/project");
    const made = await json(call(`/v1/sessions/${sessionId}/links`, { method: "POST", token: ada, body: { role: "viewer" } }));
    const linkToken = new URLSearchParams(new URL(made.url).hash.slice(1)).get("link")!;
    const { connectionId, reader, stub } = await openConnection(linkToken);

    expect((await call(`/v1/sessions/${sessionId}/links/${made.id}`, { method: "DELETE", token: ada })).status).toBe(200);
    const ended = ends(reader);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await ended).toBe(true);
    const linkRefusal = { error: { code: -32000, message: "this link was revoked", data: { reason: "revoked" } } };
    expect(await refusal(await acp("POST", linkToken, connectionId, { jsonrpc: "2.0", id: 1, method: "session/list", params: {} }))).toEqual([401, linkRefusal]);
    expect(await refusal(await acp("GET", ada, connectionId))).toEqual([401, linkRefusal]);
    owner.close();
  });
});
