import { describe, expect, it } from "vitest";
import { diffRows } from "../../../web/src/app/state/diff-rows.js";
import { matchingCommands } from "../../../web/src/app/state/slash-completion.js";
import { sliceLines } from "../../../web/src/app/workspace/workspace-paths.js";

describe("sliceLines", () => {
  const text = "a\nb\nc\nd";
  it("applies ACP's 1-based line and limit", () => {
    expect(sliceLines(text)).toBe(text);
    expect(sliceLines(text, 2)).toBe("b\nc\nd");
    expect(sliceLines(text, 2, 2)).toBe("b\nc");
    expect(sliceLines(text, null, 1)).toBe("a");
  });
});

describe("diffRows", () => {
  it("numbers old and new lines around a change", () => {
    expect(diffRows("/w/a", "one\ntwo\nthree\n", "one\n2\nthree\n")).toEqual([
      { kind: "hunk", text: "@@ -1,3 +1,3 @@" },
      { kind: "ctx", oldLine: 1, newLine: 1, text: "one" },
      { kind: "del", oldLine: 2, text: "two" },
      { kind: "add", newLine: 2, text: "2" },
      { kind: "ctx", oldLine: 3, newLine: 3, text: "three" },
    ]);
  });

  it("shows a new file as added lines only", () => {
    expect(diffRows("/w/new", null, "x\ny\n").filter((r) => r.kind !== "hunk")).toEqual([
      { kind: "add", newLine: 1, text: "x" },
      { kind: "add", newLine: 2, text: "y" },
    ]);
  });
});

describe("matchingCommands", () => {
  const commands = [
    { name: "context", description: "" },
    { name: "compress", description: "" },
    { name: "help", description: "" },
  ];
  it("offers commands while the prompt is a lone /prefix", () => {
    expect(matchingCommands("/co", commands).map((c) => c.name)).toEqual(["context", "compress"]);
    expect(matchingCommands("/", commands)).toHaveLength(3);
    expect(matchingCommands("/help me", commands)).toEqual([]);
    expect(matchingCommands("hello /co", commands)).toEqual([]);
  });
});
