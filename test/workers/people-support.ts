/** Helpers for the people tests: a tenant with users' keys and an admin key, and their ACP clients. */
import { admin, json, uniqueTenant } from "./admin-client.js";
import { TestClient, type Frame } from "./acp-test-client.js";
import { FULL_CAPS, ScriptedEditor } from "./scripted-editor.js";

export async function keyFor(tenant: string, user?: string): Promise<string> {
  const res = await admin("/keys", { method: "POST", body: { tenant, label: user ?? "admin", ...(user ? { user } : {}) } });
  if (res.status !== 201) throw new Error(`create key failed: ${res.status} ${await res.text()}`);
  return (await json(res)).key as string;
}

export interface Team {
  tenant: string;
  keys: { ada: string; bob: string; cy: string; admin: string };
}

/** A tenant with users ada, bob and cy, and a key without a user (the tenant's admin). */
export async function team(): Promise<Team> {
  const tenant = uniqueTenant();
  const [ada, bob, cy, adminKey] = await Promise.all([keyFor(tenant, "ada"), keyFor(tenant, "bob"), keyFor(tenant, "cy"), keyFor(tenant)]);
  return { tenant, keys: { ada, bob, cy, admin: adminKey } };
}

export function editorOf(token: string): Promise<ScriptedEditor> {
  return ScriptedEditor.open(FULL_CAPS, { token });
}

export function clientOf(token: string): Promise<TestClient> {
  return TestClient.ready({ token });
}

/** The error of a request, with the session id in `data` left out (it names what was asked, not whose it is). */
export function errorShape(res: Frame): unknown {
  if (!res.error) return { result: res.result };
  const { sessionId: _ignored, ...data } = (res.error.data ?? {}) as Frame;
  return { code: res.error.code, message: res.error.message, data };
}

export const load = (client: TestClient, sessionId: string, cwd = "/work/project") => client.request("session/load", { sessionId, cwd, mcpServers: [] });
