/**
 * The words the proxy uses when the service cannot be used: the JSON-RPC
 * errors editors receive and the matching stderr lines. Kept in one place so
 * that editors and logs say the same thing.
 * @module
 */
import type { ConnectFailure } from "./connect.js";
import { describeTokenSource, type ValueSource } from "./config.js";
import { ErrorCode, type JsonRpcError } from "./jsonrpc.js";

/** Past --give-up-after. Not -32000: in ACP that code means "authentication required". */
export function unreachableError(url: string, since: Date): JsonRpcError {
  const at = since.toISOString();
  return {
    code: ErrorCode.internalError,
    message: `The hermes-edge service at ${url} is unreachable since ${at}; the proxy keeps retrying in the background`,
    data: { reason: "service_unreachable", url, since: at },
  };
}

export interface TokenOrigin {
  readonly url: string;
  readonly tokenSource: ValueSource;
  readonly configPath: string;
}

/** HTTP 401/403 at the upgrade: the stderr line and the error for the editor's requests. */
export function unauthorized(failure: ConnectFailure & { kind: "unauthorized" }, origin: TokenOrigin): { log: string; error: JsonRpcError } {
  const source = describeTokenSource(origin.tokenSource, origin.configPath);
  return {
    log:
      `the hermes-edge service at ${origin.url} refused the connection (${failure.message}). ` +
      `Token used: ${source}. Fix it with "npx hermes-edge-proxy --setup", HERMES_EDGE_TOKEN or --token.`,
    error: {
      code: ErrorCode.authRequired,
      message: `hermes-edge refused the token (HTTP ${failure.status}); token source: ${source}. Run "npx hermes-edge-proxy --setup" or set HERMES_EDGE_TOKEN.`,
      data: { reason: "unauthorized", status: failure.status, tokenSource: origin.tokenSource },
    },
  };
}

export function connectFailureLog(failure: ConnectFailure, url: string): string {
  const hint = failure.kind === "http" && failure.status === 404 ? ` — is ${url} the service's /acp endpoint?` : "";
  return `cannot reach the hermes-edge service at ${url}: ${failure.message}${hint}`;
}
