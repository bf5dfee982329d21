/** A session's title is the start of its first prompt, on one line. */
export function titleFromPrompt(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= max) return line || "Untitled session";
  return `${line.slice(0, max - 1).trimEnd()}…`;
}
