/**
 * `web_fetch`: an HTTP GET made by the service itself (not the user's machine),
 * bounded in time and size, with HTML reduced to text. Only public http(s)
 * hosts: see `url-policy.ts`. Redirects are followed by hand so every hop is
 * checked against the same policy.
 */
import * as z from "zod";
import { readBounded } from "../bounded-read.js";
import { htmlToText } from "./html-to-text.js";
import { boundedForModel, formatCount, previewBlock } from "./render.js";
import { ToolError, type Tool } from "./tool.js";
import { checkFetchUrl } from "./url-policy.js";

export const FETCH_TIMEOUT_MS = 15_000;
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
const MAX_REDIRECTS = 5;

const inputSchema = z.object({
  url: z.string().min(1).describe("The http:// or https:// URL to fetch."),
});

export type WebFetchInput = z.infer<typeof inputSchema>;

export const webFetchTool: Tool<WebFetchInput> = {
  name: "web_fetch",
  description:
    "Fetch a public web page or text resource with HTTP GET and return its text (HTML reduced to plain text). " +
    `Gives up after ${FETCH_TIMEOUT_MS / 1000} s and reads at most ${MAX_BODY_BYTES / 1024 / 1024} MB. ` +
    "Runs on the agent's server: it cannot reach localhost or private networks on the user's machine.",
  kind: "fetch",
  inputSchema,
  title: (input) => `Fetch ${input.url}`,
  async run(input, ctx) {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(new ToolError(`No complete answer within ${FETCH_TIMEOUT_MS / 1000} s.`)), FETCH_TIMEOUT_MS);
    const onCancel = () => stop.abort(ctx.signal.reason);
    ctx.signal.addEventListener("abort", onCancel, { once: true });
    if (ctx.signal.aborted) onCancel();
    try {
      const { response, url } = await fetchFollowingRedirects(checkFetchUrl(input.url), stop.signal);
      const finalUrl = url.href;
      if (!response.ok) {
        await response.body?.cancel();
        throw new ToolError(`${finalUrl} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`);
      }
      const type = response.headers.get("content-type") ?? "";
      if (!isTextual(type)) {
        await response.body?.cancel();
        throw new ToolError(`${finalUrl} is ${type || "of an unknown type"}, not text; web_fetch only reads text and HTML.`);
      }
      const body = await readBounded(response.body, MAX_BODY_BYTES);
      const raw = decode(body.bytes, type);
      const text = /html/i.test(type) || (!type && /^\s*</.test(raw)) ? htmlToText(raw) : raw;
      const header = `${finalUrl} (${type || "unknown type"}, ${formatCount(body.bytes.byteLength)} bytes${
        body.truncated ? `; stopped reading at ${MAX_BODY_BYTES / 1024 / 1024} MB` : ""
      })`;
      return {
        output: `${header}\n\n${boundedForModel(text, "The page is longer than this.").text}`,
        content: [previewBlock(text || "(no text)")],
        rawOutput: { url: finalUrl, status: response.status, contentType: type, bytes: body.bytes.byteLength, truncated: body.truncated },
      };
    } catch (err) {
      if (ctx.signal.aborted || err instanceof ToolError) throw err;
      if (stop.signal.aborted && stop.signal.reason instanceof ToolError) throw stop.signal.reason;
      throw new ToolError(`Could not fetch ${input.url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onCancel);
    }
  },
};

/** The final response and its URL (constructed and manually redirected responses may have an empty `url`). */
async function fetchFollowingRedirects(start: URL, signal: AbortSignal): Promise<{ response: Response; url: URL }> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, {
      method: "GET",
      redirect: "manual",
      signal,
      headers: { accept: "text/html, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5", "user-agent": "hermes-edge web_fetch" },
    });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) return { response, url };
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new ToolError(`${start.href} redirected more than ${MAX_REDIRECTS} times.`);
    url = checkFetchUrl(new URL(location, url).href);
  }
}

function isTextual(contentType: string): boolean {
  if (contentType === "") return true;
  return /^text\/|^application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|ecmascript|x-yaml|yaml|toml|x-sh)\b|^image\/svg\+xml/i.test(contentType);
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset="?([\w-]+)"?/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}
