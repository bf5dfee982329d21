/**
 * What a session is called on the page, the same in the list and in its
 * header: its title, or "New session" until it has one (the service titles
 * a session from its first prompt). Pure.
 * @module
 */

export const UNTITLED_SESSION = "New session";

/** The first title known (the live one from the transcript, then the listed one). */
export function sessionTitle(...titles: readonly (string | null | undefined)[]): string {
  return titles.find((t) => typeof t === "string" && t.trim() !== "")?.trim() ?? UNTITLED_SESSION;
}
