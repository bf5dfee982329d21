import { describe, expect, it } from "vitest";
import { boundMcpResult, MAX_RESULT_BYTES } from "../src/mcp-result-bound.js";

type Bounded = { content: { type: string; text?: string; resource?: { uri: string; text?: string } }[]; structuredContent?: unknown };
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

describe("boundMcpResult", () => {
  it("leaves a result under the limit as it is", () => {
    const result = { content: [{ type: "text", text: "hi" }], structuredContent: { a: 1 } };
    expect(boundMcpResult(result, 100)).toBe(result);
  });

  it("cuts text and leaves out binary content past the limit, saying how much", () => {
    const result = { content: [{ type: "text", text: "x".repeat(300) }, { type: "text", text: "y".repeat(1_500) }, { type: "image", data: "A".repeat(500), mimeType: "image/png" }] };
    const bounded = boundMcpResult(result, 2_000) as Bounded;
    expect(bounded.content[0]).toEqual({ type: "text", text: "x".repeat(300) });
    expect(bounded.content[1]!.text).toMatch(/^y+\n\[cut by hermes-edge-proxy: \d+ more bytes\]$/);
    const kept = bounded.content[1]!.text!.indexOf("\n");
    expect(bounded.content[1]!.text).toContain(`${1_500 - kept} more bytes`);
    expect(bounded.content[2]).toEqual({ type: "text", text: "[image content of 500 bytes left out by hermes-edge-proxy: too large to relay]" });
    expect(bytes(bounded)).toBeLessThanOrEqual(2_000);
  });

  it("cuts an embedded text resource like text, keeping its uri", () => {
    const resource = { uri: "file:///big.log", mimeType: "text/plain", text: "r".repeat(3 * MAX_RESULT_BYTES) };
    const bounded = boundMcpResult({ content: [{ type: "resource", resource }] }) as Bounded;
    const shown = bounded.content[0]!;
    expect(shown.type).toBe("resource");
    expect(shown.resource).toMatchObject({ uri: "file:///big.log", mimeType: "text/plain" });
    expect(shown.resource!.text).toMatch(/\n\[cut by hermes-edge-proxy: \d+ more bytes\]$/);
    expect(bytes(bounded)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
  });

  it("counts UTF-8 bytes, not characters: multi-byte text and escapes stay within the limit", () => {
    const cjk = "漢".repeat(600_000); // 1.8 MB of UTF-8 in 600,000 characters
    const quotes = '"\n'.repeat(400_000); // 800,000 characters, 1.6 MB as JSON
    const emoji = "🙂".repeat(300_000); // 4 bytes each, two UTF-16 units
    const result = {
      content: [
        { type: "text", text: cjk },
        { type: "resource", resource: { uri: "file:///q", text: quotes } },
        { type: "text", text: emoji },
      ],
      structuredContent: { big: "s".repeat(10_000) },
    };
    const bounded = boundMcpResult(result) as Bounded;
    expect(bytes(bounded)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(bounded.content[0]!.text).toMatch(/^漢+\n\[cut by hermes-edge-proxy: \d+ more bytes\]$/);
    const keptChars = bounded.content[0]!.text!.indexOf("\n");
    expect(bounded.content[0]!.text).toContain(`${(600_000 - keptChars) * 3} more bytes`);
    // Nothing was split inside a character or an escape.
    expect(bounded.content[2]!.text).toMatch(/^(🙂)*\n\[cut by hermes-edge-proxy: \d+ more bytes\]$/u);
    expect(bounded.structuredContent).toBeUndefined();
  });

  it("never goes over the limit, whatever the result's other fields hold", () => {
    const blocks = Array.from({ length: 50 }, (_, i) => ({ type: "resource_link", uri: `file:///${i}`, name: "n".repeat(5_000) }));
    const bounded = boundMcpResult({ content: blocks, isError: true }, 10_000) as Bounded & { isError?: boolean };
    expect(bytes(bounded)).toBeLessThanOrEqual(10_000);
    expect(bounded).toEqual({ content: [{ type: "text", text: expect.stringMatching(/^\[a result of \d+ bytes left out by hermes-edge-proxy: too large to relay\]$/) }], isError: true });
  });
});
