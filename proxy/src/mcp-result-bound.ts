/**
 * Keeps a stdio server's `tools/call` result well under the service's frame
 * limit (4 MiB by default): text is cut and large binary content replaced by a
 * note, so a huge result reaches the agent as a bounded one instead of a frame
 * it must refuse. The agent bounds what the model reads much further.
 * @module
 */
export const MAX_RESULT_CHARS = 1_000_000;

type Block = { type?: unknown; text?: unknown; data?: unknown; resource?: { text?: unknown; blob?: unknown } } & Record<string, unknown>;

export function boundMcpResult(result: unknown, limit = MAX_RESULT_CHARS): unknown {
  if (typeof result !== "object" || result === null || !Array.isArray((result as { content?: unknown }).content)) return result;
  if (JSON.stringify(result).length <= limit) return result;
  let budget = limit;
  const content = ((result as { content: Block[] }).content).map((block): Block => {
    if (typeof block.text === "string") {
      const keep = Math.max(0, Math.min(block.text.length, budget));
      budget -= keep;
      if (keep === block.text.length) return block;
      return { ...block, text: `${block.text.slice(0, keep)}\n[cut by hermes-edge-proxy: ${block.text.length - keep} more characters]` };
    }
    const size = typeof block.data === "string" ? block.data.length : typeof block.resource?.blob === "string" ? block.resource.blob.length : 0;
    if (size <= budget) {
      budget -= size;
      return block;
    }
    return { type: "text", text: `[${String(block.type)} content of ${size} base64 characters left out by hermes-edge-proxy: too large to relay]` };
  });
  const { structuredContent, ...rest } = result as Record<string, unknown>;
  const keepStructured = structuredContent !== undefined && JSON.stringify(structuredContent).length <= budget;
  return { ...rest, content, ...(keepStructured ? { structuredContent } : {}) };
}
