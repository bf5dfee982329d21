/**
 * Pure builders for `session/update` payloads. They return the SDK's generated
 * types so a wrong field is a type error, not a frame the editor drops.
 */
import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk";

export function agentMessageChunk(text: string, messageId: string): SessionUpdate {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text }, messageId };
}

export function agentThoughtChunk(text: string, messageId: string): SessionUpdate {
  return { sessionUpdate: "agent_thought_chunk", content: { type: "text", text }, messageId };
}

/** A prompt's block; `author` (the prompting key's user) goes in `_meta.hermes.author`. */
export function userMessageChunk(content: ContentBlock, messageId: string, author?: string | null): SessionUpdate {
  return { sessionUpdate: "user_message_chunk", content, messageId, ...(author ? { _meta: { hermes: { author: { user: author } } } } : {}) };
}

export function sessionInfoUpdate(title: string, updatedAt: string): SessionUpdate {
  return { sessionUpdate: "session_info_update", title, updatedAt };
}

export function usageUpdate(used: number, size: number): SessionUpdate {
  return { sessionUpdate: "usage_update", used, size };
}
