/**
 * Opens the WebSocket to the service's `/acp` endpoint and classifies a
 * failure (refused token, wrong path, unreachable) so that each caller can
 * say plainly what went wrong.
 * @module
 */
import WebSocket from "ws";
import { httpErrorMessage } from "@hermes-edge/protocol";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./line-framing.js";

export interface ConnectOptions {
  readonly url: string;
  readonly token: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** Abort the handshake after this long. */
  readonly timeoutMs: number;
  readonly maxPayload?: number;
}

/** Why nothing usable answered. */
export type NetworkCause = "refused" | "dns" | "tls" | "timeout" | "network";

export type ConnectFailure =
  /** HTTP 401/403 before the upgrade: the token was missing or refused. */
  | { readonly kind: "unauthorized"; readonly status: number; readonly message: string }
  /** Any other non-101 HTTP answer: wrong path (404), not a WebSocket endpoint, server error. */
  | { readonly kind: "http"; readonly status: number; readonly message: string }
  /** DNS, TCP, TLS or handshake timeout: nothing usable answered. */
  | { readonly kind: "unreachable"; readonly cause: NetworkCause; readonly message: string };

export type ConnectResult =
  | { readonly ok: true; readonly socket: WebSocket; readonly connectionId: string | null }
  | ({ readonly ok: false } & ConnectFailure);

/** How much of a refusal's body is read: the service's JSON error fits many times over. */
const BODY_READ_BYTES = 4096;
/** How much of a refusal's reason is shown. */
const REASON_CHARS = 300;

/**
 * An HTTP refusal's reason in words: the service's JSON error body says it in
 * `error.message` ("key revoked"), and that is what a person should read, not
 * the JSON around it. Any other body (a proxy's HTML page, plain text), or one
 * with an empty message, is shown as it came, cut short.
 */
export function refusalReason(body: string): string {
  const message = httpErrorMessage(body)?.trim();
  return (message || body.trim()).slice(0, REASON_CHARS).trim();
}

export function openSocket(options: ConnectOptions): Promise<ConnectResult> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: ConnectResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers["Authorization"] = `Bearer ${options.token}`;
    let socket: WebSocket;
    try {
      socket = new WebSocket(options.url, {
        headers,
        handshakeTimeout: options.timeoutMs,
        maxPayload: options.maxPayload ?? DEFAULT_MAX_MESSAGE_BYTES,
        // Compression buys little for short JSON frames and costs CPU on both ends.
        perMessageDeflate: false,
        followRedirects: false,
      });
    } catch (err) {
      settle({ ok: false, kind: "unreachable", cause: "network", message: err instanceof Error ? err.message : String(err) });
      return;
    }
    let connectionId: string | null = null;
    socket.on("upgrade", (response) => {
      const header = response.headers["acp-connection-id"];
      connectionId = (Array.isArray(header) ? header[0] : header) ?? null;
    });
    socket.once("open", () => settle({ ok: true, socket, connectionId }));
    socket.on("unexpected-response", (request, response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        if (size < BODY_READ_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      const finish = (): void => {
        const reason = refusalReason(Buffer.concat(chunks).toString("utf8"));
        const message = `HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""}${reason ? `: ${reason}` : ""}`;
        settle(status === 401 || status === 403 ? { ok: false, kind: "unauthorized", status, message } : { ok: false, kind: "http", status, message });
        request.destroy();
      };
      response.once("end", finish);
      response.once("error", finish);
      // A body that never ends must not hang the caller.
      setTimeout(finish, 1000).unref();
    });
    // Errors after the handshake are reported through the caller's `close`
    // handler; this listener keeps an `error` event from crashing the process.
    socket.on("error", (err) => {
      settle({ ok: false, kind: "unreachable", ...describeNetworkError(err) });
    });
    socket.once("close", () => settle({ ok: false, kind: "unreachable", cause: "network", message: "the connection closed during the handshake" }));
  });
}

function describeNetworkError(err: Error): { cause: NetworkCause; message: string } {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  if (code === "ECONNREFUSED") return { cause: "refused", message: `connection refused (${err.message})` };
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return { cause: "dns", message: `host not found (${err.message})` };
  if (code === "ETIMEDOUT" || /timed out|timeout/i.test(err.message)) return { cause: "timeout", message: `timed out (${err.message})` };
  if (isTlsError(code, err.message)) return { cause: "tls", message: `TLS handshake failed (${err.message.split("\n")[0]?.trim()})` };
  return { cause: "network", message: err.message };
}

/** OpenSSL and certificate failures: `wss://` to a plain port (EPROTO), bad or self-signed certificates. */
function isTlsError(code: string, message: string): boolean {
  return (
    code === "EPROTO" ||
    /^(ERR_SSL_|ERR_TLS_|CERT_)/.test(code) ||
    ["DEPTH_ZERO_SELF_SIGNED_CERT", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY"].includes(code) ||
    /SSL routines|certificate/i.test(message)
  );
}
