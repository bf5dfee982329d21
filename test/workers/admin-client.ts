/** REST helpers for the admin API and managed keys, each request from a fresh client address. */
import { SELF } from "cloudflare:test";
import { freshAddress, type Frame } from "./acp-test-client.js";

export const ADMIN_TOKEN = "admin-test-token";

export interface RestInit {
  method?: string;
  body?: unknown;
  /** Raw body text (sent as is). */
  text?: string;
  /** `null` sends no Authorization header. */
  token?: string | null;
  address?: string;
  headers?: Record<string, string>;
}

export function call(path: string, init: RestInit = {}): Promise<Response> {
  const headers: Record<string, string> = { "CF-Connecting-IP": init.address ?? freshAddress(), ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const body = init.text ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return SELF.fetch(`http://hermes.test${path}`, { method: init.method ?? "GET", headers, body });
}

export function admin(path: string, init: Omit<RestInit, "token"> & { token?: string | null } = {}): Promise<Response> {
  return call(`/v1/admin${path}`, { ...init, token: init.token === undefined ? ADMIN_TOKEN : init.token });
}

export async function json(res: Response | Promise<Response>): Promise<Frame> {
  return (await (await res).json()) as Frame;
}

/** Creates a managed key through the admin API and returns the creation answer (with the secret). */
export async function createKey(tenant: string, label = "test", expiresAt?: string): Promise<Frame> {
  const res = await admin("/keys", { method: "POST", body: { tenant, label, ...(expiresAt ? { expiresAt } : {}) } });
  if (res.status !== 201) throw new Error(`create key failed: ${res.status} ${await res.text()}`);
  return json(res);
}

export function uniqueTenant(prefix = "t"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}
