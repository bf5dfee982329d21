import { describe, expect, it } from "vitest";
import { errorWithDetails } from "../src/index.js";
import { cannotReattach, connectionLost, promptLost, reattachFailed, turnOutcomeUnknown } from "../src/tracker-errors.js";

describe("the reconnect tracker's own errors", () => {
  // Toad shows only data.reason and data.details: each sentence must be there, and each reason stays what programs test.
  it.each([
    ["connectionLost", connectionLost("session/new"), "connection_lost", "dropped before it answered session/new"],
    ["reattachFailed", reattachFailed("s1", { code: -32002, message: "Resource not found" }), "reattach_failed", "Could not re-attach session s1 after reconnecting: Resource not found"],
    ["turnOutcomeUnknown", turnOutcomeUnknown("s1"), "turn_outcome_unknown", "did not say how this prompt ended"],
    ["promptLost", promptLost("s1"), "prompt_lost", "lost this prompt twice"],
    ["cannotReattach", cannotReattach(), undefined, "neither sessionCapabilities.resume nor loadSession"],
  ])("%s puts its sentence in data.details", (_name, error, reason, words) => {
    expect(error.message).toContain(words);
    expect(error.data).toEqual({ ...(reason === undefined ? {} : { reason }), details: error.message });
  });

  it("keeps the data it is given beside the details", () => {
    expect(errorWithDetails(-32603, "It broke.", { reason: "broken", url: "ws://x" })).toEqual({
      code: -32603,
      message: "It broke.",
      data: { reason: "broken", url: "ws://x", details: "It broke." },
    });
  });
});
