/**
 * The words the proxy uses when the service cannot be used, or an editor's
 * message cannot be: the JSON-RPC errors the proxy itself sends editors and
 * the matching stderr lines. Kept in one place so that editors and logs say
 * the same thing. Every one is built by `errorWithDetails`: some clients
 * (Toad) show only `data.reason` and `data.details`, so the sentence goes
 * there too.
 * @module
 */
import { ErrorCode, errorWithDetails, formatSize, type ErrorResponse } from "@hermes-edge/protocol";
import type { ConnectFailure } from "./connect.js";
import { describeTokenSource, type ValueSource } from "./config.js";
import { setupCommand } from "./setup-command.js";

/** The clone's way to start the service, as README says. */
export const LOCAL_START_HINT = "Is the service running? Locally: `npm start` in the hermes-edge clone serves it at ws://127.0.0.1:8787/acp.";

/** Past --give-up-after. Not -32000: in ACP that code means "authentication required". */
export function unreachableError(url: string, since: Date): ErrorResponse {
  const at = since.toISOString();
  return errorWithDetails(ErrorCode.internalError, `The hermes-edge service at ${url} is unreachable since ${at}; the proxy keeps retrying in the background`, {
    reason: "service_unreachable",
    url,
    since: at,
  });
}

/** The outbox (requests waiting for the service) is full. */
export function outboxFullError(): ErrorResponse {
  return errorWithDetails(ErrorCode.internalError, "Too many requests are waiting for the hermes-edge service to come back; try again later.", { reason: "outbox_full" });
}

/** A line on stdin longer than the proxy reads: skipped unread, so its id is unknown (the answer's id is null). */
export function messageTooLargeError(maxBytes: number): ErrorResponse {
  return errorWithDetails(
    ErrorCode.invalidRequest,
    `A message from the editor was over hermes-edge-proxy's limit of ${formatSize(maxBytes)} (${maxBytes} bytes) and was dropped; it never reached the service.`,
  );
}

/** A line on stdin that is not JSON-RPC: `error` is the decoder's (-32700 or -32600, with `data.detail`), kept as it is but for the sentence. */
export function malformedMessageError(error: ErrorResponse): ErrorResponse {
  const detail = (error.data as { detail?: unknown } | undefined)?.detail;
  const why = typeof detail === "string" ? `${error.message}: ${detail}` : error.message;
  return errorWithDetails(error.code, `hermes-edge-proxy cannot read a message from the editor (${why}); it was not sent to the service.`, (error.data ?? {}) as Record<string, unknown>);
}

/** `logout` could not remove the saved token (an unreadable or unwritable config file). */
export function logoutFailedError(err: unknown): ErrorResponse {
  return errorWithDetails(ErrorCode.internalError, `Could not log out of hermes-edge: ${errorText(err)}. The saved token was not removed.`);
}

/** `authenticate` after `logout`: the saved config (or a flag, or HERMES_EDGE_TOKEN) cannot be used. */
export function unusableConfigError(err: unknown): ErrorResponse {
  // The config's own errors say how to fix them (ConfigError: "…; fix it, delete it, or run hermes-edge-proxy --setup").
  return errorWithDetails(ErrorCode.authRequired, `Cannot authenticate with hermes-edge: ${errorText(err)}.`);
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/[.\s]+$/, "");
}

/** What went wrong, in the words of `data.cause`. */
export type StartupCause = "refused" | "dns" | "tls" | "timeout" | "network" | "not_found" | "not_websocket" | "server_error";

/**
 * Failures that retrying in the next seconds will not fix: answer the editor
 * at once. An HTTP 5xx is not one: a deploy or a restart often ends it.
 */
export function isDefinitive(failure: ConnectFailure): boolean {
  if (failure.kind === "http") return failure.status < 500;
  return failure.kind === "unreachable" && (failure.cause === "dns" || failure.cause === "tls");
}

/**
 * The proxy has not reached the service since it started: the answer to the
 * editor's `initialize` (and whatever else waits), naming the URL and the
 * cause. `failure` is the last attempt's; undefined when it is still pending.
 */
export function startupError(url: string, failure: ConnectFailure | undefined, waitedMs: number): ErrorResponse {
  const { cause, words } = describeStartupFailure(url, failure, waitedMs);
  return errorWithDetails(ErrorCode.internalError, `Cannot connect to the hermes-edge service at ${url}: ${words}`, {
    reason: "service_unreachable_at_startup",
    url,
    cause,
    ...(failure ? { detail: failure.message } : {}),
  });
}

function describeStartupFailure(url: string, failure: ConnectFailure | undefined, waitedMs: number): { cause: StartupCause; words: string } {
  const seconds = Math.round(waitedMs / 1000);
  if (!failure) return { cause: "timeout", words: `no answer within ${seconds} s. Check the URL and your network.` };
  if (failure.kind === "http") {
    if (failure.status === 404) {
      return { cause: "not_found", words: `HTTP 404: nothing answers at ${new URL(url).pathname}; the hermes-edge endpoint is /acp on the service's host.` };
    }
    if (failure.status >= 500) return { cause: "server_error", words: `the server answered ${failure.message} instead of upgrading to a WebSocket.` };
    return { cause: "not_websocket", words: `the server answered ${failure.message} instead of upgrading: not a WebSocket endpoint, so not a hermes-edge /acp URL.` };
  }
  if (failure.kind === "unauthorized") return { cause: "network", words: failure.message };
  switch (failure.cause) {
    case "refused":
      return { cause: "refused", words: `connection refused: nothing listens there. ${LOCAL_START_HINT}` };
    case "dns":
      return { cause: "dns", words: `host not found: DNS cannot resolve ${new URL(url).hostname}. Check the URL.` };
    case "tls":
      return { cause: "tls", words: `${failure.message}. Check the URL's scheme (ws:// or wss://) and the server's certificate.` };
    case "timeout":
      return { cause: "timeout", words: `no answer within ${seconds} s (${failure.message}).` };
    default:
      return { cause: "network", words: failure.message };
  }
}

export interface TokenOrigin {
  readonly url: string;
  readonly tokenSource: ValueSource;
  readonly configPath: string;
}

/** HTTP 401/403 at the upgrade: the stderr line and the error for the editor's requests. */
export function unauthorized(failure: ConnectFailure & { kind: "unauthorized" }, origin: TokenOrigin): { log: string; error: ErrorResponse } {
  const source = describeTokenSource(origin.tokenSource, origin.configPath);
  const setup = setupCommand();
  // failure.message carries the service's reason in words ("HTTP 401 Unauthorized: key revoked", see connect.ts): the editor sees it too.
  return {
    log:
      `the hermes-edge service at ${origin.url} refused the connection (${failure.message}). ` +
      `Token used: ${source}. Fix it with "${setup}", HERMES_EDGE_TOKEN or --token.`,
    error: errorWithDetails(ErrorCode.authRequired, `hermes-edge at ${origin.url} refused the token (${failure.message}); token source: ${source}. Run "${setup}" or set HERMES_EDGE_TOKEN.`, {
      reason: "unauthorized",
      status: failure.status,
      tokenSource: origin.tokenSource,
      url: origin.url,
    }),
  };
}

/** After `logout`: every request but `authenticate` and `logout` (`initialize` included) gets this until the editor authenticates. */
export function loggedOutError(): ErrorResponse {
  return errorWithDetails(
    ErrorCode.authRequired,
    'Authentication required: logged out of hermes-edge. Authenticate again (the terminal method runs "hermes-edge-proxy --setup").',
    { reason: "logged_out" },
  );
}

/** A first run: no token from any source, and the editor can run the terminal setup method. */
export function notConfiguredError(): ErrorResponse {
  return errorWithDetails(
    ErrorCode.authRequired,
    'Authentication required: hermes-edge-proxy has no token yet. Authenticate with "Configure hermes-edge" (it runs "hermes-edge-proxy --setup"), or set HERMES_EDGE_TOKEN.',
    { reason: "not_configured" },
  );
}

export function connectFailureLog(failure: ConnectFailure, url: string): string {
  const hint = failure.kind === "http" && failure.status === 404 ? ` — is ${url} the service's /acp endpoint?` : "";
  return `cannot reach the hermes-edge service at ${url}: ${failure.message}${hint}`;
}
