/**
 * The body of a streamed chat-completions request, as text. It is what
 * `JSON.stringify` of the request object gives, but each message's JSON comes
 * from `messageJson` (worked out once per message and kept with it), and the
 * tools' JSON once per tool list: a turn deep into a long session serializes
 * only its new messages, never the history again, and the history exists once
 * more only as the body itself.
 */
import { messageJson } from "./message-json.js";
import type { ModelRequest, ToolSpec } from "./model-provider.js";

const toolsJson = new WeakMap<readonly ToolSpec[], string>();

export function chatRequestBody(request: Omit<ModelRequest, "signal">): string {
  const parts = ['{"model":', JSON.stringify(request.model), ',"messages":['];
  request.messages.forEach((message, i) => {
    if (i > 0) parts.push(",");
    parts.push(messageJson(message));
  });
  parts.push('],"stream":true,"stream_options":{"include_usage":true}');
  if (request.tools.length > 0) parts.push(',"tools":', jsonOfTools(request.tools));
  if (request.reasoningEffort) parts.push(',"reasoning_effort":', JSON.stringify(request.reasoningEffort));
  parts.push("}");
  return parts.join("");
}

function jsonOfTools(tools: readonly ToolSpec[]): string {
  let json = toolsJson.get(tools);
  if (json === undefined) {
    json = JSON.stringify(tools);
    toolsJson.set(tools, json);
  }
  return json;
}
