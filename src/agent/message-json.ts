/**
 * Each history message's JSON and its size for the token estimate, worked
 * out once per message object and remembered with it (a WeakMap: they go when
 * the message goes). The history cache hands the same objects to every turn,
 * so a long history is not stringified again, neither to count its tokens nor
 * to build a model request (whose bytes then keep the JSON instead:
 * `takeMessageJson`, `chat-request-body.ts`).
 */
import type { ChatMessage } from "./model-provider.js";

const jsonOf = new WeakMap<ChatMessage, string>();
const charsOf = new WeakMap<ChatMessage, number>();

/** Records a message's JSON when it is already at hand (the stored row's body, or what was just stored). */
export function rememberJson(message: ChatMessage, json: string): void {
  jsonOf.set(message, json);
}

/** `JSON.stringify(message)`, computed at most once per message object. */
export function messageJson(message: ChatMessage): string {
  let json = jsonOf.get(message);
  if (json === undefined) {
    json = JSON.stringify(message);
    jsonOf.set(message, json);
  }
  return json;
}

/**
 * `messageJson`, then forgotten here: for a caller that keeps the JSON itself
 * (a request's joined history, `chat-request-body.ts`), so it is not held twice.
 */
export function takeMessageJson(message: ChatMessage): string {
  const json = jsonOf.get(message) ?? JSON.stringify(message);
  jsonOf.delete(message);
  return json;
}

/** The characters the token estimate counts for a message: its content and tool calls, as JSON. */
export function messageChars(message: ChatMessage): number {
  let chars = charsOf.get(message);
  if (chars === undefined) {
    chars = JSON.stringify(message.content ?? "").length + ("tool_calls" in message ? JSON.stringify(message.tool_calls ?? []).length : 0);
    charsOf.set(message, chars);
  }
  return chars;
}

/** A rough token count (≈4 characters a token) from a character count. */
export function tokensFromChars(chars: number): number {
  return Math.ceil(chars / 4);
}
