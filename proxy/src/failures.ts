/**
 * The words the proxy uses when the service cannot be used: the JSON-RPC
 * errors editors receive and the matching stderr lines. Kept in one place so
 * that editors and logs say the same thing.
 * @module
 */
import { ErrorCode, type ErrorResponse } from "@hermes-edge/protocol";
import type { ConnectFailure } from "./connect.js";
import { describeTokenSource, type ValueSource } from "./config.js";
import { setupCommand } from "./setup-command.js";

/** The clone's way to start the service, as README says. */
export const LOCAL_START_HINT = "Is the service running? Locally: `npm start` in the hermes-edge clone serves it at ws://127.0.0.1:8787/acp.";

/** Past --give-up-after. Not -32000: in ACP that code means "authentication required". */
export function unreachableError(url: string, since: Date): ErrorResponse {
  const at = since.toISOString();
  return {
    code: ErrorCode.internalError,
    message: `The hermes-edge service at ${url} is unreachable since ${at}; the proxy keeps retrying in the background`,
    data: { reason: "service_unreachable", url, since: at, details: `The hermes-edge service at ${url} is unreachable since ${at}; the proxy keeps retrying.` },
  };
}

/** The outbox (requests waiting for the service) is full. */
export function outboxFullError(): ErrorResponse {
  const message = "Too many requests are waiting for the hermes-edge service to come back; try again later.";
  return { code: ErrorCode.internalError, message, data: { reason: "outbox_full", details: message } };
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
  const message = `Cannot connect to the hermes-edge service at ${url}: ${words}`;
  return {
    code: ErrorCode.internalError,
    message,
    // Some clients (Toad) show only data.reason and data.details: the sentence goes there too.
    data: { reason: "service_unreachable_at_startup", details: message, url, cause, ...(failure ? { detail: failure.message } : {}) },
  };
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
  // failure.message carries the service's reason ("HTTP 401 Unauthorized: key revoked"): the editor sees it too.
  const message = `hermes-edge at ${origin.url} refused the token (${failure.message}); token source: ${source}. Run "${setup}" or set HERMES_EDGE_TOKEN.`;
  return {
    log:
      `the hermes-edge service at ${origin.url} refused the connection (${failure.message}). ` +
      `Token used: ${source}. Fix it with "${setup}", HERMES_EDGE_TOKEN or --token.`,
    error: {
      code: ErrorCode.authRequired,
      message,
      data: { reason: "unauthorized", details: message, status: failure.status, tokenSource: origin.tokenSource, url: origin.url },
    },
  };
}

const LOGGED_OUT = 'Authentication required: logged out of hermes-edge. Authenticate again (the terminal method runs "hermes-edge-proxy --setup").';
const NOT_CONFIGURED =
  'Authentication required: hermes-edge-proxy has no token yet. Authenticate with "Configure hermes-edge" (it runs "hermes-edge-proxy --setup"), or set HERMES_EDGE_TOKEN.';

/** After `logout`: every request but `authenticate` and `logout` (`initialize` included) gets this until the editor authenticates. */
export function loggedOutError(): ErrorResponse {
  return {
    code: ErrorCode.authRequired,
    message: LOGGED_OUT,
    data: { reason: "logged_out", details: LOGGED_OUT },
  };
}

/** A first run: no token from any source, and the editor can run the terminal setup method. */
export function notConfiguredError(): ErrorResponse {
  return {
    code: ErrorCode.authRequired,
    message: NOT_CONFIGURED,
    data: { reason: "not_configured", details: NOT_CONFIGURED },
  };
}

export function connectFailureLog(failure: ConnectFailure, url: string): string {
  const hint = failure.kind === "http" && failure.status === 404 ? ` — is ${url} the service's /acp endpoint?` : "";
  return `cannot reach the hermes-edge service at ${url}: ${failure.message}${hint}`;
}
