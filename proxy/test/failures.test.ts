/**
 * The errors the proxy itself sends the editor. Toad shows only `data.reason`
 * and `data.details` of an error, never its message: every one must carry its
 * sentence in `data.details`, and keep the `data.reason` programs test.
 */
import { decodeFrame, toErrorResponse, type ErrorResponse } from "@hermes-edge/protocol";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config.js";
import { refusalReason, type ConnectFailure } from "../src/connect.js";
import {
  loggedOutError,
  logoutFailedError,
  malformedMessageError,
  messageTooLargeError,
  notConfiguredError,
  outboxFullError,
  startupError,
  unauthorized,
  unreachableError,
  unusableConfigError,
} from "../src/failures.js";

const URL = "ws://127.0.0.1:8787/acp";
const refused: ConnectFailure = { kind: "unreachable", cause: "refused", message: "connection refused (connect ECONNREFUSED 127.0.0.1:8787)" };
const revoked = { kind: "unauthorized", status: 401, message: "HTTP 401 Unauthorized: key revoked" } as const;
const invalid = decodeFrame("{not json");
if (invalid.kind !== "invalid") throw new Error("the decoder took a line that is not JSON");

const builders: [name: string, error: ErrorResponse, reason: string | undefined, words: string][] = [
  ["unreachableError", unreachableError(URL, new Date("2026-03-01T12:00:00Z")), "service_unreachable", `The hermes-edge service at ${URL} is unreachable since 2026-03-01T12:00:00.000Z`],
  ["outboxFullError", outboxFullError(), "outbox_full", "Too many requests are waiting for the hermes-edge service"],
  ["startupError, refused", startupError(URL, refused, 3_000), "service_unreachable_at_startup", "connection refused: nothing listens there. Is the service running? Locally: `npm start`"],
  ["startupError, no answer yet", startupError(URL, undefined, 10_000), "service_unreachable_at_startup", "no answer within 10 s"],
  ["unauthorized", unauthorized(revoked, { url: URL, tokenSource: "env", configPath: "/home/ada/.config/hermes-edge/config.json" }).error, "unauthorized", "refused the token (HTTP 401 Unauthorized: key revoked)"],
  ["loggedOutError", loggedOutError(), "logged_out", "logged out of hermes-edge"],
  ["notConfiguredError", notConfiguredError(), "not_configured", "hermes-edge-proxy has no token yet"],
  ["messageTooLargeError", messageTooLargeError(32 * 1024 * 1024), undefined, "A message from the editor was over hermes-edge-proxy's limit of 32 MB (33554432 bytes) and was dropped"],
  ["malformedMessageError", malformedMessageError(toErrorResponse(invalid.error)), undefined, "hermes-edge-proxy cannot read a message from the editor (Parse error: "],
  ["logoutFailedError", logoutFailedError(new ConfigError("cannot rewrite /cfg.json without the token: EACCES")), undefined, "Could not log out of hermes-edge: cannot rewrite /cfg.json without the token: EACCES. The saved token was not removed."],
  ["unusableConfigError", unusableConfigError(new ConfigError("/cfg.json is not valid JSON; fix it, delete it, or run hermes-edge-proxy --setup")), undefined, "Cannot authenticate with hermes-edge: /cfg.json is not valid JSON; fix it, delete it, or run hermes-edge-proxy --setup."],
];

describe("the errors the proxy sends the editor", () => {
  it.each(builders)("%s says it in message and data.details, with its reason", (_name, error, reason, words) => {
    expect(error.message).toContain(words);
    const data = error.data as Record<string, unknown>;
    expect(data["details"]).toBe(error.message);
    expect(data["reason"]).toBe(reason);
    expect(error.message).not.toContain('{"error"');
  });

  it("keeps the decoder's code and data.detail on a malformed line", () => {
    const error = malformedMessageError(toErrorResponse(invalid.error));
    expect(error).toMatchObject({ code: -32700, data: { detail: expect.any(String), details: error.message } });
  });
});

describe("a refusal's reason", () => {
  it.each([
    ["the service's JSON error: its message", '{"error":{"code":-32000,"message":"key revoked","data":{"reason":"revoked"}}}', "key revoked"],
    ["plain text: as it came", "unauthorized\n", "unauthorized"],
    ["JSON of another shape: as it came", '{"detail":"go away"}', '{"detail":"go away"}'],
    ["an error with an empty message: as it came", '{"error":{"message":" "}}', '{"error":{"message":" "}}'],
    ["an HTML page: its first 300 characters", `<html>${"x".repeat(500)}</html>`, `<html>${"x".repeat(294)}`],
    ["nothing", "", ""],
  ])("%s", (_what, body, reason) => {
    expect(refusalReason(body)).toBe(reason);
  });
});
