/**
 * `--check`: connect, initialize, and say in plain words whether the service
 * and the token work. `probeService` is shared with `--setup`.
 * @module
 */
import type { InitializeRequest } from "@agentclientprotocol/sdk";
import { decodeFrame, PROTOCOL_VERSION, readInitializeResult, requestFrame } from "@hermes-edge/protocol";
import type WebSocket from "ws";
import { describeTokenSource, healthUrl, type ResolvedConfig } from "./config.js";
import { openSocket } from "./connect.js";
import { LOCAL_START_HINT } from "./failures.js";
import { setupCommand } from "./setup-command.js";
import { frameText } from "./socket-lifecycle.js";
import { PACKAGE_NAME, PACKAGE_VERSION } from "./version.js";

export type ProbeFailure = "unreachable" | "unauthorized" | "wrong_path" | "not_websocket" | "protocol_mismatch" | "initialize_failed";

export type ProbeResult =
  | {
      readonly ok: true;
      readonly agentName: string | undefined;
      readonly agentVersion: string | undefined;
      readonly protocolVersion: number;
    }
  /** `status`: the HTTP status of a refused upgrade (401 or 403). */
  | { readonly ok: false; readonly reason: ProbeFailure; readonly message: string; readonly status?: number };

export interface ProbeTarget {
  readonly url: string;
  readonly token: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

const PROBE_ID = "hermes-proxy:check";

export async function probeService(target: ProbeTarget, timeoutMs = 10_000): Promise<ProbeResult> {
  const connected = await openSocket({ ...target, timeoutMs });
  if (!connected.ok) {
    switch (connected.kind) {
      case "unreachable":
        return { ok: false, reason: "unreachable", message: `cannot reach ${target.url}: ${connected.message}` };
      case "unauthorized":
        return { ok: false, reason: "unauthorized", status: connected.status, message: `the service refused the token (${connected.message})` };
      case "http":
        if (connected.status === 404) return { ok: false, reason: "wrong_path", message: await wrongPathMessage(target.url) };
        return {
          ok: false,
          reason: "not_websocket",
          message: `${target.url} answered ${connected.message} instead of upgrading to a WebSocket; it is not a hermes-edge /acp endpoint`,
        };
    }
  }
  const socket = connected.socket;
  try {
    const response = await initializeOnce(socket, timeoutMs);
    if (response.kind === "lost") return { ok: false, reason: "unreachable", message: response.reason };
    if (response.kind === "error") return { ok: false, reason: "initialize_failed", message: `initialize failed: ${response.message}` };
    const info = readInitializeResult(response.result);
    if (!info) return { ok: false, reason: "initialize_failed", message: "the initialize response is not an ACP InitializeResponse" };
    if (info.protocolVersion !== PROTOCOL_VERSION) {
      return {
        ok: false,
        reason: "protocol_mismatch",
        message: `protocol version mismatch: the service speaks ACP ${info.protocolVersion}, this proxy speaks ACP ${PROTOCOL_VERSION}; update the proxy (npx hermes-edge-proxy@latest) or the service`,
      };
    }
    return { ok: true, agentName: info.agentName, agentVersion: info.agentVersion, protocolVersion: info.protocolVersion };
  } finally {
    socket.close(1000, "check done");
  }
}

type InitializeOutcome =
  | { readonly kind: "result"; readonly result: unknown }
  | { readonly kind: "error"; readonly message: string }
  | { readonly kind: "lost"; readonly reason: string };

function initializeOnce(socket: WebSocket, timeoutMs: number): Promise<InitializeOutcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: "lost", reason: `no initialize response within ${timeoutMs} ms` }), timeoutMs);
    socket.on("message", (data) => {
      const frame = decodeFrame(frameText(data));
      if (frame.kind !== "response" || frame.message.id !== PROBE_ID) return;
      clearTimeout(timer);
      const { error, result } = frame.message;
      resolve(error ? { kind: "error", message: `${error.message} (${error.code})` } : { kind: "result", result });
    });
    socket.once("close", (code) => {
      clearTimeout(timer);
      resolve({ kind: "lost", reason: `the service closed the connection (code ${code}) before answering initialize` });
    });
    socket.send(requestFrame(PROBE_ID, "initialize", probeInitializeParams(PACKAGE_NAME, PACKAGE_VERSION)));
  });
}

/** The `initialize` params `--check` and `--setup` send: a client that offers nothing. */
function probeInitializeParams(clientName: string, clientVersion: string): InitializeRequest {
  return {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: clientName, version: clientVersion },
  };
}

/** A 404 on /acp: tell "wrong path on a hermes-edge host" from "not hermes-edge at all". */
async function wrongPathMessage(url: string): Promise<string> {
  const path = new URL(url).pathname;
  try {
    const response = await fetch(healthUrl(url), { signal: AbortSignal.timeout(3000) });
    const body: unknown = response.ok ? await response.json() : undefined;
    if (typeof body === "object" && body !== null && "name" in body && body.name === "hermes-edge") {
      return `wrong path: the host runs hermes-edge, but ${path} is not its ACP endpoint (HTTP 404); use /acp`;
    }
  } catch {
    // No /health either: fall through to the generic message.
  }
  return `wrong path: HTTP 404 at ${url}; the hermes-edge endpoint is /acp on the service's host`;
}

/** Prints the report of `--check` and returns the exit code. */
export async function runCheck(config: ResolvedConfig, headers: Readonly<Record<string, string>>, print: (line: string) => void): Promise<number> {
  print(`${PACKAGE_NAME} ${PACKAGE_VERSION}`);
  print(`URL:     ${config.url} (from ${config.urlSource === "config" ? config.configPath : config.urlSource})`);
  print(`Token:   ${config.token === undefined ? "none" : `from ${describeTokenSource(config.tokenSource, config.configPath)}`}`);
  const result = await probeService({ url: config.url, token: config.token, headers });
  if (result.ok) {
    const agent = result.agentName ? `${result.agentName} ${result.agentVersion ?? ""}`.trim() : "unnamed agent";
    print(`Service: ${agent}, ACP protocol ${result.protocolVersion}`);
    print(`Token accepted: ${config.token === undefined ? "no token was needed" : "yes"}`);
    print("OK");
    return 0;
  }
  if (result.reason === "unauthorized") print(`Token accepted: no (HTTP ${result.status ?? 401} ${result.status === 403 ? "forbidden" : "unauthorized"})`);
  print(`FAILED (${result.reason.replace("_", " ")}): ${result.message}`);
  const hint = hints[result.reason];
  if (hint) print(hint);
  return 1;
}

const hints: Partial<Record<ProbeFailure, string>> = {
  unreachable: LOCAL_START_HINT,
  unauthorized: `Run \`${setupCommand()}\`, or set HERMES_EDGE_TOKEN to a valid token.`,
};
