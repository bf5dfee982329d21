import { describe, expect, it } from "vitest";
import { describePaste, incomingTransfer, keepsPasteAside, LARGE_PASTE_CHARS, pastedText, promptBlocks } from "../../../web/src/app/state/pasted-text.js";

/** A paste's clipboardData or a drop's dataTransfer, as the box reads it. */
const transfer = (text: string, files: string[] = []) => ({ files, getData: (format: string) => (format === "text/plain" ? text : "") });

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

  it("treats a paste and a drop alike: large text aside, small text to the browser, files to the attachments when images go", () => {
    const large = "x".repeat(LARGE_PASTE_CHARS + 1);
    expect(incomingTransfer("", transfer(large), true)).toEqual({ kind: "aside", paste: pastedText(large) });
    expect(incomingTransfer("y".repeat(LARGE_PASTE_CHARS - 1), transfer("zz"), false)).toEqual({ kind: "aside", paste: pastedText("zz") });
    expect(incomingTransfer("hello", transfer("small"), true)).toEqual({ kind: "insert" });
    expect(incomingTransfer("", transfer("", ["a.png"]), true)).toEqual({ kind: "attach", files: ["a.png"] });
    // A model without images: the files are not the box's, and their (empty) text is left to the browser.
    expect(incomingTransfer("", transfer("", ["a.png"]), false)).toEqual({ kind: "insert" });
    expect(incomingTransfer("", null, true)).toEqual({ kind: "insert" });
  });
});
