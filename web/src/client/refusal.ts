/**
 * Why a WebSocket to `/acp` did not open. Browsers hide the HTTP answer to a
 * failed upgrade, so the service is asked again over plain HTTP: `GET /acp`
 * with the key in `Authorization` answers 401 with the service's reason for a
 * wrong key, 403 for a refused origin, 426 when both are fine. A page whose
 * origin is refused gets no CORS headers and cannot read even that; a
 * `no-cors` request then tells "refused" apart from "unreachable".
 * @module
 */
import { zHttpErrorBody } from "@hermes-edge/protocol";
import { z } from "zod";

export type RefusalKind = "unauthorized" | "origin" | "unreachable" | "other";

export interface Refusal {
  readonly kind: RefusalKind;
  readonly message: string;
  /** True when trying again cannot help (wrong key, refused origin). */
  readonly final: boolean;
}

/** Both REST error shapes the service has used: `{error: {code, message}}` and `{error, message}`. */
const zErrorBody = z.union([
  zHttpErrorBody.transform((b) => b.error.message),
  z.looseObject({ error: z.string(), message: z.string().optional() }).transform((b) => b.message ?? b.error),
]);

/** `ws(s)://host/acp` → `http(s)://host/acp`. */
export function httpUrlOf(wsUrl: string): URL {
  const url = new URL(wsUrl);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  return url;
}

async function serviceReason(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const parsed = zErrorBody.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON
  }
  return text.trim() || `HTTP ${res.status}`;
}

/** `GET /acp` with the key; undefined when the browser could not read an answer at all. */
async function probe(url: URL, key: string): Promise<Response | undefined> {
  try {
    return await fetch(url, { headers: { Authorization: `Bearer ${key}` }, cache: "no-store", credentials: "omit" });
  } catch {
    return undefined;
  }
}

async function reachable(url: URL): Promise<boolean> {
  try {
    await fetch(new URL("/health", url), { mode: "no-cors", cache: "no-store", credentials: "omit" });
    return true;
  } catch {
    return false;
  }
}

export async function explainRefusal(wsUrl: string, key: string, origin: string | undefined): Promise<Refusal> {
  const url = httpUrlOf(wsUrl);
  let res = await probe(url, key);
  if (!res) {
    if (!(await reachable(url))) return { kind: "unreachable", message: `Cannot reach the service at ${url.origin}.`, final: false };
    // Reachable, yet unreadable: a refused origin, unless the network came back just now.
    res = await probe(url, key);
    if (!res) {
      const page = origin ? `this page's origin (${origin})` : "this page's origin";
      return { kind: "origin", message: `The service refused ${page}: add it to HERMES_ALLOWED_ORIGINS on the service.`, final: true };
    }
  }
  if (res.status === 401) return { kind: "unauthorized", message: `The service refused the key: ${await serviceReason(res)}`, final: true };
  if (res.status === 403) return { kind: "origin", message: await serviceReason(res), final: true };
  await res.body?.cancel();
  if (res.status === 426) {
    return { kind: "other", message: "The service accepted the key, but the WebSocket could not be opened (a proxy in between?).", final: false };
  }
  return { kind: "other", message: `The WebSocket could not be opened (the service answers HTTP ${res.status}).`, final: false };
}
