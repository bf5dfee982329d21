/**
 * How a sub-agent's traffic looks in its parent's session. The editor knows
 * only the parent's ACP session id, so forwarded requests carry it; the
 * sub-agent's tool calls get ids of their own (prefixed with the sub-agent id) and
 * `_meta.hermes.{parentToolCallId, subagentId}` so a client can nest them.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";

export interface RelayIds {
  parentSessionId: string;
  subagentId: string;
  parentToolCallId: string;
}

/** Updates a sub-agent relays to its parent: its tool calls, not its text. */
export function isRelayed(update: SessionUpdate): boolean {
  return update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update";
}

export function relayedToolCallId(subagentId: string, toolCallId: string): string {
  return `${subagentId}/${toolCallId}`;
}

type Meta = Record<string, unknown> | null | undefined;

/**
 * The hermes part of `_meta` on a relayed item. An item relayed from deeper
 * down already names its own sub-agent and parent call; those ids are then
 * made unique here the same way, so nesting survives any depth.
 */
function relayMeta(meta: Meta, ids: RelayIds): Record<string, unknown> {
  const hermes = (meta?.hermes ?? {}) as Record<string, unknown>;
  const nested = typeof hermes.subagentId === "string" && typeof hermes.parentToolCallId === "string";
  return {
    ...meta,
    hermes: {
      ...hermes,
      subagentId: nested ? hermes.subagentId : ids.subagentId,
      parentToolCallId: nested ? relayedToolCallId(ids.subagentId, hermes.parentToolCallId as string) : ids.parentToolCallId,
    },
  };
}

/** A sub-agent's `tool_call`/`tool_call_update` as the parent session logs and sends it. */
export function decorateSubagentUpdate(update: SessionUpdate, ids: RelayIds): SessionUpdate {
  if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") return update;
  return { ...update, toolCallId: relayedToolCallId(ids.subagentId, update.toolCallId), _meta: relayMeta(update._meta, ids) };
}

/** A sub-agent's request to the editor, rewritten to name the parent session (and, for permission, the relayed call). */
export function editorParams(method: string, params: unknown, ids: RelayIds): unknown {
  if (typeof params !== "object" || params === null) return params;
  const rewritten: Record<string, unknown> = { ...(params as Record<string, unknown>), sessionId: ids.parentSessionId };
  if (method === "session/request_permission") {
    const toolCall = rewritten.toolCall as Record<string, unknown> | undefined;
    if (toolCall && typeof toolCall.toolCallId === "string") {
      rewritten.toolCall = { ...toolCall, toolCallId: relayedToolCallId(ids.subagentId, toolCall.toolCallId) };
    }
    rewritten._meta = relayMeta(rewritten._meta as Meta, ids);
  }
  return rewritten;
}
