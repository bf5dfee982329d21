/**
 * The names MCP tools get in front of the model: `mcp__<server>__<tool>`.
 * Model APIs accept `[A-Za-z0-9_-]{1,64}`, so other characters become `_` and
 * a longer name is cut, ending in a short hash of the full one so that two
 * long names that share a prefix stay apart and the same tool keeps its name.
 */
export const MAX_TOOL_NAME = 64;
export const MCP_PREFIX = "mcp__";

export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_PREFIX}${sanitizeName(server)}__${sanitizeName(tool)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const hash = fnv1a(`${server}\u0000${tool}`).toString(36).padStart(7, "0");
  return `${full.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

/** 32-bit FNV-1a: synchronous (WebCrypto is not) and stable across releases. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
