/**
 * An upstream ACP agent takes one prompt, not a chat: the system prompt, the
 * history and the tool results become one text, with the tools it may call and
 * how to call them (`<tool_call>` blocks, which `tool-call-text.ts` reads back).
 */
import type { ChatMessage, ToolSpec } from "../model-provider.js";

export const TOOL_CALL_INSTRUCTION =
  "To call a tool, answer with one block per call, exactly in this form:\n" +
  '<tool_call>{"name": "<tool name>", "arguments": {<arguments as JSON>}}</tool_call>\n' +
  "You may write text before the blocks. After your tool calls, stop: the results come back in the next message. " +
  "Do not use your own tools or run commands yourself; use only the tools listed here. When no tool is needed, just answer.";

export function flattenTranscript(messages: ChatMessage[], tools: readonly ToolSpec[]): string {
  const parts: string[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "developer":
        parts.push(`# Instructions\n\n${contentText(message.content)}`);
        break;
      case "user":
        parts.push(`# User\n\n${contentText(message.content)}`);
        break;
      case "assistant": {
        const calls = (message.tool_calls ?? []).flatMap((call) => {
          if (call.type !== "function") return [];
          names.set(call.id, call.function.name);
          return [`<tool_call>${JSON.stringify({ name: call.function.name, arguments: parseArguments(call.function.arguments) })}</tool_call>`];
        });
        const text = [contentText(message.content ?? ""), ...calls].filter((s) => s !== "").join("\n");
        parts.push(`# Assistant (you)\n\n${text}`);
        break;
      }
      case "tool":
        parts.push(`# Tool result: ${names.get(message.tool_call_id) ?? "tool"} (${message.tool_call_id})\n\n${contentText(message.content)}`);
        break;
      case "function":
        parts.push(`# Tool result: ${message.name}\n\n${message.content ?? ""}`);
        break;
    }
  }
  if (tools.length > 0) parts.push(`# Tools\n\n${TOOL_CALL_INSTRUCTION}\n\n${tools.map(describeTool).join("\n\n")}`);
  parts.push("# Your turn\n\nAnswer as the assistant to the conversation above.");
  return parts.join("\n\n");
}

function describeTool(tool: ToolSpec): string {
  if (tool.type !== "function") return "";
  const fn = tool.function;
  return `## ${fn.name}\n${fn.description ?? ""}\nArguments (JSON Schema): ${JSON.stringify(fn.parameters ?? { type: "object" })}`;
}

type Content = string | null | undefined | readonly ({ type: string; text?: string; refusal?: string } | unknown)[];

function contentText(content: Content): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part) => {
      const p = part as { type?: string; text?: string; refusal?: string };
      if (p.type === "text") return p.text ?? "";
      if (p.type === "refusal") return p.refusal ?? "";
      if (p.type === "image_url") return "[an image was attached here; this model cannot see it]";
      return `[${p.type ?? "unknown"} content omitted]`;
    })
    .join("\n");
}

function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
