// HERMES_SUBAGENT_APPROVAL: parsing, and the gate that denies instead of asking.
import { describe, expect, it, vi } from "vitest";
import { delegationSettings } from "../../../src/config.js";
import { AUTO_DENY_REASON } from "../../../src/delegate/subagent-task.js";
import type { Env } from "../../../src/env.js";
import { PermissionGate, type GatePorts } from "../../../src/session/permission-gate.js";
import { ToolError, type GateRequest } from "../../../src/tools/tool.js";

const env = (vars: Partial<Env>): Env => vars as Env;

describe("delegationSettings", () => {
  it("defaults to depth 1, three children at once, and asking", () => {
    expect(delegationSettings(env({}))).toEqual({ maxSpawnDepth: 1, maxConcurrentSubagents: 3, subagentApproval: "ask" });
  });

  it("reads the limits and the approval policy, falling back on nonsense", () => {
    expect(
      delegationSettings(env({ HERMES_MAX_SPAWN_DEPTH: "0", HERMES_MAX_CONCURRENT_CHILDREN: "5", HERMES_SUBAGENT_APPROVAL: " DENY " })),
    ).toEqual({ maxSpawnDepth: 0, maxConcurrentSubagents: 5, subagentApproval: "deny" });
    expect(delegationSettings(env({ HERMES_MAX_SPAWN_DEPTH: "-1", HERMES_MAX_CONCURRENT_CHILDREN: "0", HERMES_SUBAGENT_APPROVAL: "maybe" }))).toEqual({
      maxSpawnDepth: 1,
      maxConcurrentSubagents: 3,
      subagentApproval: "ask",
    });
    expect(delegationSettings(env({ HERMES_MAX_SPAWN_DEPTH: "99", HERMES_MAX_CONCURRENT_CHILDREN: "999" }))).toMatchObject({
      maxSpawnDepth: 5,
      maxConcurrentSubagents: 16,
    });
  });
});

const write: GateRequest = { kind: "edit", paths: ["/w/a.ts"], title: "Write /w/a.ts", content: [] };
const call = () => ({ toolCallId: "t1", signal: new AbortController().signal });

function gate(mode: string, extra: Partial<GatePorts>) {
  const askClient = vi.fn(async () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }));
  const ports: GatePorts = {
    sessionId: "sub-1",
    mode: () => mode,
    sessionRules: () => [],
    addSessionRule: () => undefined,
    hasTenantRule: async () => false,
    addTenantRule: async () => undefined,
    askClient,
    timeoutMs: 1000,
    ...extra,
  };
  return { gate: new PermissionGate(ports), askClient };
}

describe("a sub-agent's permission gate", () => {
  it("with approval denied, refuses what it would ask, without asking, and says why", async () => {
    const g = gate("default", { autoDeny: AUTO_DENY_REASON, label: "sub-agent 1" });
    const err = await g.gate.check(write, call()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toBe(`Permission for editing /w/a.ts was denied: ${AUTO_DENY_REASON}.`);
    expect(g.askClient).not.toHaveBeenCalled();
  });

  it("with approval denied, still follows a mode that needs no question", async () => {
    const g = gate("accept_edits", { autoDeny: AUTO_DENY_REASON });
    await expect(g.gate.check(write, call())).resolves.toBeUndefined();
    expect(g.askClient).not.toHaveBeenCalled();
  });

  it("otherwise asks, with the sub-agent's label in the title", async () => {
    const g = gate("default", { label: "sub-agent 2: fix it" });
    await g.gate.check(write, call());
    expect(g.askClient).toHaveBeenCalledWith(expect.objectContaining({ toolCall: expect.objectContaining({ title: "[sub-agent 2: fix it] Write /w/a.ts" }) }), expect.anything());
  });
});
