import { describe, expect, it } from "vitest";
import { turnRecord } from "../../../src/session/turn-record.js";

describe("turnRecord", () => {
  it("stores a failed turn as failed with its error and no stop reason", () => {
    const ended = turnRecord({ stopReason: null, error: { code: -32603, message: "the model request failed" } });
    expect(ended).toEqual({
      state: "failed",
      stopReason: null,
      record: { lastStopReason: null, lastError: { code: -32603, message: "the model request failed" } },
    });
  });

  it("never stores end_turn for a turn that carries an error, whatever stop reason came with it", () => {
    const ended = turnRecord({ stopReason: "end_turn", error: { code: -32003, message: "over the tenant's limit" } });
    expect(ended.state).toBe("failed");
    expect(ended.record.lastStopReason).toBeNull();
  });

  it("stores a finished turn's stop reason and clears an earlier failure", () => {
    expect(turnRecord({ stopReason: "max_tokens" })).toEqual({ state: "done", stopReason: "max_tokens", record: { lastStopReason: "max_tokens", lastError: null } });
  });

  it("marks a turn a restart cut off as interrupted, keeping its stop reason", () => {
    expect(turnRecord({ stopReason: "cancelled" }, true)).toMatchObject({ state: "interrupted", stopReason: "cancelled" });
  });
});
