/**
 * `_hermes/subagents/interrupt` for a sub-agent further down. The editor sees
 * a grandchild's tool calls relayed into the root session under the
 * grandchild's own id (`_meta.hermes.subagentId`), so that is the id it asks
 * the root to stop: a root that does not run it asks each sub-agent it runs.
 */
import { RequestError } from "@hermes-edge/protocol";
import type { RpcOutcome } from "../durable/rpc-outcome.js";
import type { SessionRpc } from "../session/session-rpc.js";
import type { SubagentControlResult } from "./subagent-spec.js";
import type { Subagents } from "./subagents.js";

export async function interruptSubagent(
  subagents: Pick<Subagents, "control" | "state">,
  link: (sessionId: string) => Pick<SessionRpc, "subagents">,
  tenant: string,
  subagentId: string,
): Promise<SubagentControlResult> {
  const running = subagents.state().subagentIds;
  if (running.includes(subagentId)) return subagents.control({ action: "interrupt", subagentId });
  for (const childId of running) {
    // RPC typing drops the error branch (its `data` is unknown); the value is the plain outcome.
    const outcome = (await link(childId).subagents(tenant, { action: "interrupt", subagentId }).catch(() => null)) as RpcOutcome<SubagentControlResult> | null;
    if (outcome?.ok) return { ...subagents.state(), interrupted: subagentId };
  }
  throw new RequestError(-32002, "Resource not found", { detail: "no running sub-agent with that id in this session or under it" });
}
