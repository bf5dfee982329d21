import { describe, expect, it, vi } from "vitest";
import { acquireSubagent, type TenantEnv } from "../../../src/tenant/tenant-slots.js";

/** A tenant object that always refuses with `refusal`, counting the asks. */
function refusingTenant(refusal: { limit: string; used: number; max: number }) {
  let asked = 0;
  const stub = { acquire: async () => (asked++, { ok: false, refusal }) };
  const env = { TENANT: { idFromName: (name: string) => name, get: () => stub } } as unknown as TenantEnv;
  return { env, asked: () => asked };
}

describe("acquireSubagent", () => {
  it("refuses at once when the tenant allows no sub-agents: no slot would ever come", async () => {
    const tenant = refusingTenant({ limit: "maxConcurrentSubagents", used: 0, max: 0 });
    await expect(acquireSubagent(tenant.env, "acme", "sub-1", { pollMs: 1 })).rejects.toMatchObject({ code: -32003 });
    expect(tenant.asked()).toBe(1);
  });

  it("waits while the tenant is full, until its signal says stop", async () => {
    const tenant = refusingTenant({ limit: "maxConcurrentSubagents", used: 2, max: 2 });
    const controller = new AbortController();
    const waiting = acquireSubagent(tenant.env, "acme", "sub-1", { pollMs: 1, signal: controller.signal });
    // Waits for the asks rather than a fixed 20 ms: under load a 1 ms poll may not come round in time.
    await vi.waitFor(() => expect(tenant.asked()).toBeGreaterThan(1), { timeout: 10_000 });
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });

  it("says once that the tenant's limit holds it, with the refusal, however long it waits", async () => {
    const refusal = { limit: "maxConcurrentSubagents", used: 6, max: 6 };
    const tenant = refusingTenant(refusal);
    const controller = new AbortController();
    const heard: unknown[] = [];
    const waiting = acquireSubagent(tenant.env, "acme", "sub-1", { pollMs: 1, signal: controller.signal, onWait: (r) => void heard.push(r) });
    await vi.waitFor(() => expect(tenant.asked()).toBeGreaterThan(2), { timeout: 10_000 });
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    expect(heard).toEqual([refusal]);
  });
});
