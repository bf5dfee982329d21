/**
 * The service's base URL for admin calls, from what users have at hand: the
 * `npm start` default, an http(s) URL, or the `ws(s)://…/acp` URL they give editors.
 * @module
 */

export function defaultServiceUrl(env: NodeJS.ProcessEnv = process.env): string {
  return `http://127.0.0.1:${env.PORT ?? 8787}`;
}

/** `wss://x/acp` → `https://x`; keeps any path prefix in front of `/acp`. */
export function serviceBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z]+:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw new Error(`--url: not a URL: ${raw}`);
  }
  if (url.protocol === "ws:") url.protocol = "http:";
  if (url.protocol === "wss:") url.protocol = "https:";
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`--url must be http(s) or ws(s), got ${url.protocol}`);
  url.pathname = url.pathname.replace(/\/acp\/?$/, "").replace(/\/+$/, "");
  url.search = "";
  url.hash = "";
  return url;
}

export function isLoopback(url: URL): boolean {
  return ["127.0.0.1", "localhost", "[::1]", "::1"].includes(url.hostname);
}
