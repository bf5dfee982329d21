import { describe, expect, it } from "vitest";
import { titleFromPrompt } from "../../../src/agent/session-title.js";

describe("titleFromPrompt", () => {
  it("keeps a short prompt as it is", () => {
    expect(titleFromPrompt("Fix the login bug")).toBe("Fix the login bug");
  });

  it("puts the prompt on one line, collapsing whitespace and trimming the ends", () => {
    expect(titleFromPrompt("  Fix\n\nthe\tlogin   bug \n")).toBe("Fix the login bug");
  });

  it("names an empty or blank prompt 'Untitled session'", () => {
    expect(titleFromPrompt("")).toBe("Untitled session");
    expect(titleFromPrompt(" \n\t ")).toBe("Untitled session");
  });

  it("keeps a title of exactly max characters", () => {
    const text = "x".repeat(80);
    expect(titleFromPrompt(text)).toBe(text);
  });

  it("cuts a longer prompt to max characters ending in an ellipsis", () => {
    const title = titleFromPrompt("y".repeat(81));
    expect(title).toBe(`${"y".repeat(79)}…`);
    expect(title).toHaveLength(80);
  });

  it("drops trailing spaces before the ellipsis and honours a custom max", () => {
    expect(titleFromPrompt("aaa bbb ccc", 5)).toBe("aaa…");
    expect(titleFromPrompt("abcdefgh", 5)).toBe("abcd…");
  });
});
