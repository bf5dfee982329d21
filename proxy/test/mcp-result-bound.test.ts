import { describe, expect, it } from "vitest";
import { boundMcpResult } from "../src/mcp-result-bound.js";

describe("boundMcpResult", () => {
  it("leaves a result under the limit as it is", () => {
    const result = { content: [{ type: "text", text: "hi" }], structuredContent: { a: 1 } };
    expect(boundMcpResult(result, 100)).toBe(result);
  });

  it("cuts text and leaves out binary content past the limit", () => {
    const result = { content: [{ type: "text", text: "x".repeat(80) }, { type: "text", text: "y".repeat(80) }, { type: "image", data: "A".repeat(50), mimeType: "image/png" }] };
    const bounded = boundMcpResult(result, 100) as { content: { type: string; text?: string }[] };
    expect(bounded.content[0]).toEqual({ type: "text", text: "x".repeat(80) });
    expect(bounded.content[1]!.text).toBe(`${"y".repeat(20)}\n[cut by hermes-edge-proxy: 60 more characters]`);
    expect(bounded.content[2]).toEqual({ type: "text", text: "[image content of 50 base64 characters left out by hermes-edge-proxy: too large to relay]" });
    expect(JSON.stringify(bounded).length).toBeLessThan(400);
  });
});
