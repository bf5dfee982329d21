/**
 * Where the service key is kept between page loads: `sessionStorage` (this
 * tab, until it closes) or, when "Remember this browser" is checked,
 * `localStorage`. Never in a URL or a cookie.
 * @module
 */
const KEY_ITEM = "hermes-edge.key";

export function loadKey(): { key: string; remembered: boolean } | null {
  const session = sessionStorage.getItem(KEY_ITEM);
  if (session) return { key: session, remembered: false };
  const local = localStorage.getItem(KEY_ITEM);
  return local ? { key: local, remembered: true } : null;
}

export function saveKey(key: string, remember: boolean): void {
  clearKey();
  (remember ? localStorage : sessionStorage).setItem(KEY_ITEM, key);
}

export function clearKey(): void {
  sessionStorage.removeItem(KEY_ITEM);
  localStorage.removeItem(KEY_ITEM);
}
