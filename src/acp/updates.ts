/**
 * Pure builders for `session/update` payloads. They return the SDK's generated
 * types so a wrong field is a type error, not a frame the editor drops.
 */
import type { ContentBlock, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";

export function agentMessageChunk(text: string, messageId: string): SessionUpdate {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text }, messageId };
}

export function agentThoughtChunk(text: string, messageId: string): SessionUpdate {
  return { sessionUpdate: "agent_thought_chunk", content: { type: "text", text }, messageId };
}

export function userMessageChunk(content: ContentBlock, messageId: string): SessionUpdate {
  return { sessionUpdate: "user_message_chunk", content, messageId };
}

export function sessionInfoUpdate(title: string, updatedAt: string): SessionUpdate {
  return { sessionUpdate: "session_info_update", title, updatedAt };
}

export function usageUpdate(used: number, size: number): SessionUpdate {
  return { sessionUpdate: "usage_update", used, size };
}

/** The custom notification every attached connection receives when a turn ends. */
export const TURN_ENDED = "_hermes/turn_ended";

export interface TurnEndedParams {
  sessionId: string;
  stopReason: StopReason;
  seq: number;
  /** Present when the turn failed; the prompt's response is then this JSON-RPC error. */
  error?: { code: number; message: string };
  _meta: { hermes: { requestId: string | number | null; connectionId: string | null; interrupted?: boolean } };
}
