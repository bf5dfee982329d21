import { describe, expect, it } from "vitest";
import { describePaste, keepsPasteAside, LARGE_PASTE_CHARS, pastedText, promptBlocks } from "../../../web/src/app/state/pasted-text.js";

describe("large pastes", () => {
  it("keeps a paste aside once the box would hold more than the bound, whatever its shape", () => {
    expect(keepsPasteAside("", "x".repeat(LARGE_PASTE_CHARS))).toBe(false);
    expect(keepsPasteAside("", "x".repeat(LARGE_PASTE_CHARS + 1))).toBe(true);
    expect(keepsPasteAside("y".repeat(LARGE_PASTE_CHARS - 10), "x".repeat(11))).toBe(true);
    expect(keepsPasteAside("hello", "small")).toBe(false);
  });

  it("describes a pasted text by its UTF-8 size and its lines", () => {
    expect(describePaste(pastedText("x".repeat(1024 * 1024)))).toBe("Pasted text, 1 MB, one line");
    expect(describePaste(pastedText("é".repeat(300_000)))).toBe("Pasted text, 586 KB, one line");
    expect(describePaste(pastedText("a\nb\nc\n"))).toBe("Pasted text, 6 B, 3 lines");
    expect(describePaste(pastedText("a\n".repeat(12_000)))).toBe("Pasted text, 23 KB, 12,000 lines");
  });

  it("sends what was typed first, then each pasted text as its own block, then the images", () => {
    const paste = pastedText("blob");
    expect(promptBlocks("Decode this", [paste], [{ mimeType: "image/png", data: "AA==" }])).toEqual([
      { type: "text", text: "Decode this" },
      { type: "text", text: "blob" },
      { type: "image", mimeType: "image/png", data: "AA==" },
    ]);
    expect(promptBlocks("   ", [paste], [])).toEqual([{ type: "text", text: "blob" }]);
    expect(promptBlocks("", [], [])).toEqual([]);
  });
});
