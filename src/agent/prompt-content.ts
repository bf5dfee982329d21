/**
 * Turns an ACP prompt (text, images, resource links, embedded resources) into
 * the content of one user message for an OpenAI-compatible model.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ChatCompletionContentPart } from "openai/resources/chat/completions";
import type { ChatMessage } from "./model-provider.js";

export function toUserContent(prompt: ContentBlock[]): ChatCompletionContentPart[] {
  return prompt.map(toPart);
}

function toPart(block: ContentBlock): ChatCompletionContentPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image": {
      // The payload is what the editor saw; a URI may be local to the editor's machine
      // (unreachable for the model API), so it is used only when there is no payload.
      const remote = !block.data && block.uri && /^https?:\/\//.test(block.uri) ? block.uri : undefined;
      return { type: "image_url", image_url: { url: remote ?? `data:${block.mimeType};base64,${block.data}` } };
    }
    case "audio":
      return { type: "text", text: `[audio attachment (${block.mimeType}) omitted: this agent does not process audio]` };
    case "resource_link":
      return { type: "text", text: `[Referenced resource: ${block.title ?? block.name} <${block.uri}>${block.description ? ` — ${block.description}` : ""}]` };
    case "resource": {
      const r = block.resource;
      if ("text" in r) return { type: "text", text: `<resource uri="${r.uri}">\n${r.text}\n</resource>` };
      return { type: "text", text: `[binary resource ${r.uri} (${r.mimeType ?? "unknown type"}) omitted]` };
    }
  }
}

/** Plain text of a prompt, for titles and for keeping an interrupted prompt readable. */
export function promptText(prompt: ContentBlock[]): string {
  return prompt
    .map((b) => (b.type === "text" ? b.text : b.type === "resource_link" ? b.uri : b.type === "resource" ? b.resource.uri : ""))
    .filter(Boolean)
    .join("\n");
}

/** The history's user message for a prompt. */
export function userMessage(prompt: ContentBlock[]): ChatMessage {
  return { role: "user", content: toUserContent(prompt) };
}
