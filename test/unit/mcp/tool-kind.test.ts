import { describe, expect, it } from "vitest";
import { isReadOnlyKind, mcpToolKind } from "../../../src/mcp/tool-kind.js";

describe("mcpToolKind", () => {
  it("maps readOnlyHint to read, or fetch when the tool reaches the open world", () => {
    expect(mcpToolKind({ readOnlyHint: true })).toBe("read");
    expect(mcpToolKind({ readOnlyHint: true, openWorldHint: true })).toBe("fetch");
  });

  it("maps destructiveHint to edit and anything else to other", () => {
    expect(mcpToolKind({ destructiveHint: true })).toBe("edit");
    expect(mcpToolKind({ readOnlyHint: false, destructiveHint: false })).toBe("other");
    expect(mcpToolKind(undefined)).toBe("other");
  });

  it("lets only read and fetch run without the permission gate", () => {
    expect(["read", "fetch", "edit", "other"].filter((k) => isReadOnlyKind(k as never))).toEqual(["read", "fetch"]);
  });
});
