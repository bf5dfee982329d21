import { describe, expect, it } from "vitest";
import { checkMcpUrl } from "../../../src/mcp/http-link.js";

describe("checkMcpUrl", () => {
  it("accepts public http(s) URLs", () => {
    expect(checkMcpUrl("https://mcp.example.com/mcp", false).href).toBe("https://mcp.example.com/mcp");
  });

  it("refuses loopback, private and link-local hosts unless HERMES_ALLOW_PRIVATE_MCP is on", () => {
    for (const url of ["http://127.0.0.1:3001/mcp", "http://localhost/mcp", "http://10.0.0.2/mcp", "http://169.254.169.254/", "http://[::1]/mcp"]) {
      expect(() => checkMcpUrl(url, false)).toThrow(/local or private address.*HERMES_ALLOW_PRIVATE_MCP=1/);
      expect(checkMcpUrl(url, true)).toBeInstanceOf(URL);
    }
  });

  it("refuses other schemes and invalid URLs", () => {
    expect(() => checkMcpUrl("file:///etc/passwd", true)).toThrow("only http:// and https:// MCP servers are supported, not file://");
    expect(() => checkMcpUrl("not a url", true)).toThrow('"not a url" is not a valid URL');
  });
});
