/**
 * A sub-agent's MCP tools: the parent's, at the time it starts. The sub-agent
 * has no connection of its own, so each call crosses to the parent session
 * object (`_hermes/mcp/call` on the forwarding client port), which calls its
 * server: over the parent's connection for `acp` servers. The sub-agent's own
 * gate asks (labelled, through the parent) before tools that are not read-only.
 * A signal cannot cross RPC: when the sub-agent's call is cancelled (its turn
 * was), it sends `_hermes/mcp/cancel` with the call's id, and the parent
 * cancels the call at its server as it does its own.
 */
import { requestCancelled } from "@hermes-edge/protocol";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import type { AnyTool, ClientPort } from "../tools/tool.js";
import type { McpToolInfo } from "./mcp-link.js";
import { mcpTool } from "./mcp-tool.js";

/** The forwarded methods a sub-agent's MCP call takes to its parent; never sent to an editor. */
export const SUBAGENT_MCP_CALL = "_hermes/mcp/call";
export const SUBAGENT_MCP_CANCEL = "_hermes/mcp/cancel";

/** One of the parent's MCP tools, as data that crosses RPC. */
export interface McpToolDescriptor {
  name: string;
  server: string;
  info: McpToolInfo;
}

export const zSubagentMcpCall = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()), callId: z.string().min(1).optional() });
export const zSubagentMcpCancel = z.object({ callId: z.string().min(1) });

/** What the parent offers its sub-agents: its MCP tools, and a call by tool name (gated already by the sub-agent). */
export interface SubagentMcp {
  descriptors(): McpToolDescriptor[];
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export function forwardedMcpTools(descriptors: McpToolDescriptor[], client: ClientPort, newId: () => string = () => crypto.randomUUID()): AnyTool[] {
  const call = async (name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> => {
    // Its abort event has fired already: no cancel would follow the call.
    if (signal.aborted) throw requestCancelled();
    const callId = newId();
    const cancel = () => void client.request(SUBAGENT_MCP_CANCEL, { callId }).catch(() => undefined);
    signal.addEventListener("abort", cancel, { once: true });
    try {
      return CallToolResultSchema.parse(await client.request(SUBAGENT_MCP_CALL, { name, arguments: args, callId }, { signal })) as CallToolResult;
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  };
  return descriptors.map((d) => mcpTool({ name: d.server, call: (_tool, args, signal) => call(d.name, args, signal) }, d.info, d.name));
}

export function isSubagentMcpMethod(method: string): boolean {
  return method === SUBAGENT_MCP_CALL || method === SUBAGENT_MCP_CANCEL;
}

/** Cancels that arrived before their call are remembered this long (in count), so a late call starts cancelled. */
const EARLY_CANCELS = 64;

/** The parent's side: the sub-agents' MCP calls in flight, each cancelled by its own cancel or when its task ends. */
export class SubagentMcpCalls {
  readonly #inFlight = new Map<string, AbortController>();
  readonly #cancelledEarly: string[] = [];

  /** One `_hermes/mcp/call` or `_hermes/mcp/cancel` of sub-agent `subagentId`; `taskSignal` aborts when its task ends. */
  async handle(mcp: SubagentMcp, subagentId: string, method: string, params: unknown, taskSignal: AbortSignal): Promise<unknown> {
    if (method === SUBAGENT_MCP_CANCEL) {
      const key = `${subagentId}:${zSubagentMcpCancel.parse(params).callId}`;
      const call = this.#inFlight.get(key);
      if (call) call.abort();
      else if (this.#cancelledEarly.push(key) > EARLY_CANCELS) this.#cancelledEarly.shift();
      return null;
    }
    const { name, arguments: args, callId } = zSubagentMcpCall.parse(params);
    if (callId === undefined) return mcp.call(name, args, taskSignal);
    const key = `${subagentId}:${callId}`;
    const controller = new AbortController();
    const early = this.#cancelledEarly.indexOf(key);
    if (early >= 0) this.#cancelledEarly.splice(early, 1);
    if (early >= 0 || taskSignal.aborted) throw requestCancelled();
    const onTaskEnd = () => controller.abort();
    taskSignal.addEventListener("abort", onTaskEnd, { once: true });
    this.#inFlight.set(key, controller);
    try {
      return await mcp.call(name, args, controller.signal);
    } finally {
      this.#inFlight.delete(key);
      taskSignal.removeEventListener("abort", onTaskEnd);
    }
  }
}
