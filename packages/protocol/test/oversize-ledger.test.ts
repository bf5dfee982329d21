import { describe, expect, it } from "vitest";
import { attributeOversize, decodeFrame, frameLimitMessage, OversizeLedger, type Frame } from "../src/index.js";

const frame = (value: unknown): Frame => {
  const decoded = decodeFrame(JSON.stringify(value));
  if (decoded.kind === "invalid") throw new Error("bad frame");
  return decoded;
};

const prompt = (id: number, size: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "session/prompt", params: { text: "x".repeat(size) } });
const bytes = (text: string) => new TextEncoder().encode(text).byteLength;
const limitError = (frameBytes: number) =>
  frame({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Frame of ${frameBytes} bytes exceeds the 4194304-byte limit (HERMES_MAX_FRAME_BYTES)`, data: { limitBytes: 4194304, frameBytes } } });

describe("attributeOversize", () => {
  it("gives the service's null-id frame-limit error to the request of exactly that size", () => {
    const ledger = new OversizeLedger();
    const small = prompt(1, 5000);
    const big = prompt(2, 9000);
    ledger.sent(1, small);
    ledger.sent(2, big);
    const out = attributeOversize(limitError(bytes(big)), ledger);
    expect(out).toEqual({
      kind: "response",
      message: { jsonrpc: "2.0", id: 2, error: { code: -32600, message: expect.stringContaining("HERMES_MAX_FRAME_BYTES"), data: { limitBytes: 4194304, frameBytes: bytes(big) } } },
    });
    // Taken once: the same error again cannot be pinned on anything.
    expect(attributeOversize(limitError(bytes(big)), ledger)).toMatchObject({ message: { id: null } });
  });

  it("leaves the error alone when no waiting request has that size, or that request was answered", () => {
    const ledger = new OversizeLedger();
    const big = prompt(3, 9000);
    ledger.sent(3, big);
    expect(attributeOversize(limitError(bytes(big) + 1), ledger)).toMatchObject({ message: { id: null } });
    ledger.answered(3);
    expect(attributeOversize(limitError(bytes(big)), ledger)).toMatchObject({ message: { id: null } });
  });

  it("passes other frames through untouched", () => {
    const ledger = new OversizeLedger();
    const other = frame({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    expect(attributeOversize(other, ledger)).toBe(other);
    const result = frame({ jsonrpc: "2.0", id: 7, result: {} });
    expect(attributeOversize(result, ledger)).toBe(result);
  });
});

describe("frameLimitMessage", () => {
  it("speaks in MB and says what to do, naming no variable", () => {
    expect(frameLimitMessage(5_306_197, 4_194_304)).toBe(
      "This message is 5.1 MB, more than the 4 MB the service takes in one message. Send less at once: a shorter prompt, or the text as a file in the workspace.",
    );
  });

  it("gives the bytes when the rounded size would read as the limit itself", () => {
    expect(frameLimitMessage(4_194_400, 4_194_304)).toMatch(/^This message is 4,194,400 bytes, more than the 4 MB/);
  });
});
