/**
 * Sizes as they travel: frame limits, MCP result bounds and log rows count
 * UTF-8 bytes, not the string's UTF-16 length. Used by the service, the proxy
 * and the browser client alike.
 * @module
 */
const encoder = new TextEncoder();

/** The UTF-8 length of `text` (a lone surrogate counts as the 3 bytes of U+FFFD that replaces it). */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The UTF-8 length of `value` as JSON (0 for what JSON cannot carry, such as undefined). */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? "");
}

/** `5.1 MB`, `64 KB`, `12 B`: a size as people read it (1 MB = 1024 × 1024 bytes). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${Number((bytes / 1024 / 1024).toFixed(1))} MB`;
}
