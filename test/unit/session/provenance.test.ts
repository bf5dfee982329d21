import { describe, expect, it } from "vitest";
import { continuationOf, provenance, rootLineage } from "../../../src/session/provenance.js";

describe("provenance", () => {
  it("a root session's first segment carries its ACP id", () => {
    const root = rootLineage("s1");
    expect(provenance("s1", root)).toEqual({
      acpSessionId: "s1",
      currentHermesSessionId: "s1",
      rootHermesSessionId: "s1",
      parentHermesSessionId: null,
      sessionKind: "root",
      compressionDepth: 0,
      isContinuation: false,
    });
  });

  it("each compaction links to the previous segment and deepens the count", () => {
    const first = continuationOf(rootLineage("s1"), "h2");
    const second = continuationOf(first, "h3");
    expect(provenance("s1", second, true)).toEqual({
      acpSessionId: "s1",
      currentHermesSessionId: "h3",
      rootHermesSessionId: "s1",
      parentHermesSessionId: "h2",
      sessionKind: "continuation",
      compressionDepth: 2,
      isContinuation: true,
      previousHermesSessionId: "h2",
      reason: "compression",
    });
    expect(provenance("s1", second)).not.toHaveProperty("reason");
  });

  it("forks and sub-agents hang off the parent's current segment and keep its root and depth", () => {
    const parent = continuationOf(rootLineage("p"), "p2");
    expect(rootLineage("f", { lineage: parent, kind: "fork" })).toEqual({
      currentId: "f",
      rootId: "p",
      parentId: "p2",
      kind: "fork",
      compressionDepth: 1,
      previousId: null,
    });
    expect(rootLineage("c", { lineage: parent, kind: "subagent" }).kind).toBe("subagent");
  });
});
