/**
 * An MCP `tools/call` result as the model and the editor see it: the model
 * reads bounded text (images and binary resources described, not inlined);
 * the editor gets ACP tool-call content (text previews, images, resource
 * links, embedded resources) kept small enough for one update-log row.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { jsonBytes } from "@hermes-edge/protocol";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { boundedForModel, formatCount, previewBlock, previewText, truncateText, PREVIEW_CHARS } from "../tools/render.js";
import { ToolError, type ToolOutcome } from "../tools/tool.js";

/** Larger images reach the model as a description only, and the editor as a note (a log row holds 2 MB). */
export const MAX_EDITOR_IMAGE_CHARS = 512 * 1024;
/** What one result shows the editor in all, in UTF-8 bytes of JSON, so that its update fits one log row with room to spare. */
export const MAX_EDITOR_CONTENT_BYTES = 1536 * 1024;
/** Kept back from the budget for the note that says how many blocks were left out. */
const LEFT_OUT_NOTE_BYTES = 256;

type Block = CallToolResult["content"][number];

export function toolOutcome(tool: string, result: CallToolResult): ToolOutcome {
  const modelParts: string[] = [];
  const content: ToolCallContent[] = [];
  let room = MAX_EDITOR_CONTENT_BYTES - LEFT_OUT_NOTE_BYTES;
  let leftOut = 0;
  // A block's size counts the comma that separates it from the next.
  const show = (shown: ToolCallContent, fallback?: () => ToolCallContent) => {
    let size = jsonBytes(shown) + 1;
    if (size > room && fallback) {
      shown = fallback();
      size = jsonBytes(shown) + 1;
    }
    if (size > room) return void leftOut++;
    room -= size;
    content.push(shown);
  };
  for (const block of result.content ?? []) {
    modelParts.push(modelText(block));
    // Several large images each under the image limit can still outgrow a row: past the budget, they are described.
    // Once one is left out, so are the rest: the editor sees the first blocks and the note, and a huge result costs no more sizing.
    if (leftOut > 0) leftOut++;
    else show(editorContent(block), () => previewBlock(`${modelText(block)} (not shown: the result is too large to show in full)`));
  }
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) {
    const json = JSON.stringify(structured);
    // Servers SHOULD also send it as text (MCP spec); then the model need not read it twice.
    if (!(result.content ?? []).some((b) => b.type === "text")) {
      modelParts.push(`Structured result:\n${json}`);
      show(previewBlock(json));
    }
  }
  if (leftOut > 0) content.push(previewBlock(`… ${formatCount(leftOut)} more content ${leftOut === 1 ? "block" : "blocks"} not shown: the result is too large to show in full`));
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
        // Cut like a text preview, with the same note saying how much is hidden.
        return { type: "content", content: { type: "resource", resource: { uri: r.uri, text: previewText(r.text), ...(r.mimeType ? { mimeType: r.mimeType } : {}) } } };
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
