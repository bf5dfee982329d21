import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../../src/db/cursor.js";

describe("list cursors", () => {
  it("round-trip a position", () => {
    for (const position of [
      { updatedAt: 0, id: "a" },
      { updatedAt: 1_767_225_600_123, id: "0f8e6a2c-5d1b-4c3e-9a7f-2b6d8e1c4a90" },
      { updatedAt: 42, id: "id with spaces, commas and \"quotes\"" },
    ]) {
      expect(decodeCursor(encodeCursor(position))).toEqual(position);
    }
  });

  it("are opaque strings without padding", () => {
    const cursor = encodeCursor({ updatedAt: 5, id: "abc" });
    expect(cursor).toMatch(/^[A-Za-z0-9+/]+$/);
    expect(cursor).not.toContain("abc");
  });

  it("reject tampered or foreign cursors with RangeError", () => {
    const valid = encodeCursor({ updatedAt: 5, id: "abc" });
    const bad = [
      "",
      "not a cursor!",
      valid.slice(0, -3),
      `${valid}x`,
      btoa("not json"),
      btoa(JSON.stringify({ updatedAt: 5, id: "abc" })),
      btoa(JSON.stringify({ u: -1, i: "abc" })),
      btoa(JSON.stringify({ u: 1.5, i: "abc" })),
      btoa(JSON.stringify({ u: 5, i: "" })),
      btoa(JSON.stringify([5, "abc"])),
    ];
    for (const cursor of bad) {
      expect(() => decodeCursor(cursor), cursor).toThrow(RangeError);
      expect(() => decodeCursor(cursor), cursor).toThrow("invalid cursor");
    }
  });
});
