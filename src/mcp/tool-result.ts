/**
 * An MCP `tools/call` result as the model and the editor see it: the model
 * reads bounded text (images and binary resources described, not inlined);
 * the editor gets ACP tool-call content (text previews, images, resource
 * links, embedded resources) kept small enough for one update-log row.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { boundedForModel, formatCount, previewBlock, truncateText, PREVIEW_CHARS } from "../tools/render.js";
import { ToolError, type ToolOutcome } from "../tools/tool.js";

/** Larger images reach the model as a description only, and the editor as a note (a log row holds 2 MB). */
export const MAX_EDITOR_IMAGE_CHARS = 512 * 1024;
/** What one result shows the editor in all, so that its update fits one log row with room to spare. */
export const MAX_EDITOR_CONTENT_CHARS = 1536 * 1024;

type Block = CallToolResult["content"][number];

export function toolOutcome(tool: string, result: CallToolResult): ToolOutcome {
  const modelParts: string[] = [];
  const content: ToolCallContent[] = [];
  let room = MAX_EDITOR_CONTENT_CHARS;
  for (const block of result.content ?? []) {
    modelParts.push(modelText(block));
    // Several large images each under the image limit can still outgrow a row: past the budget, they are described.
    let shown = editorContent(block);
    let size = JSON.stringify(shown).length;
    if (size > room) {
      shown = previewBlock(`${modelText(block)} (not shown: the result is too large to show in full)`);
      size = JSON.stringify(shown).length;
    }
    room -= size;
    content.push(shown);
  }
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    const json = JSON.stringify(structured);
    // Servers SHOULD also send it as text (MCP spec); then the model need not read it twice.
    if (!(result.content ?? []).some((b) => b.type === "text")) {
      modelParts.push(`Structured result:\n${json}`);
      content.push(previewBlock(json));
    }
  }
  const text = modelParts.join("\n\n") || "(the tool returned no content)";
  if (result.isError) throw new ToolError(`${tool} reported an error: ${truncateText(text, PREVIEW_CHARS).text}`);
  const bounded = boundedForModel(text, "Ask the tool for a smaller part if it can give one.");
  return { output: bounded.text, content: content.length ? content : [previewBlock(text)] };
}

function modelText(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${formatCount(base64Bytes(block.data))} bytes]`;
    case "resource_link":
      return `[resource link: ${block.name} <${block.uri}>${block.mimeType ? ` (${block.mimeType})` : ""}]${block.description ? ` ${block.description}` : ""}`;
    case "resource": {
      const r = block.resource;
      if ("text" in r && typeof r.text === "string") return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text}`;
      return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}: ${formatCount(base64Bytes(String((r as { blob?: string }).blob ?? "")))} bytes of binary data]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

function editorContent(block: Block): ToolCallContent {
  switch (block.type) {
    case "text":
      return previewBlock(block.text);
    case "image":
      return block.data.length <= MAX_EDITOR_IMAGE_CHARS
        ? { type: "content", content: { type: "image", data: block.data, mimeType: block.mimeType } }
        : previewBlock(modelText(block));
    case "resource_link":
      return {
        type: "content",
        content: {
          type: "resource_link",
          uri: block.uri,
          name: block.name,
          ...(block.mimeType ? { mimeType: block.mimeType } : {}),
          ...(block.description ? { description: block.description } : {}),
        },
      };
    case "resource": {
      const r = block.resource;
      if ("text" in r && typeof r.text === "string") {
        const cut = truncateText(r.text, PREVIEW_CHARS);
        return { type: "content", content: { type: "resource", resource: { uri: r.uri, text: cut.text, ...(r.mimeType ? { mimeType: r.mimeType } : {}) } } };
      }
      return previewBlock(modelText(block));
    }
    default:
      return previewBlock(modelText(block));
  }
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}
