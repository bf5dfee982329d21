import { describe, expect, it } from "vitest";
import { applyReplacement, applyUnifiedDiff, parseUnifiedDiff, PatchError } from "../../../src/tools/text-patch.js";

describe("applyReplacement", () => {
  it.each([
    ["a b c", "b", "B", false, "a B c", 1],
    ["x\ny\nz\n", "y\n", "", false, "x\nz\n", 1],
    ["one one one", "one", "1", true, "1 1 1", 3],
    ["aaaa", "aa", "b", true, "bb", 2],
    ["cost: $1", "$1", "$2 and $&", false, "cost: $2 and $&", 1],
    ["a\r\nb\r\nc\r\n", "a\nb\n", "A\nB\n", false, "A\r\nB\r\nc\r\n", 1],
    ["x\r\ny", "x\r\ny", "z", false, "z", 1],
  ])("in %j replaces %j with %j (all=%s)", (text, oldString, newString, all, expected, count) => {
    expect(applyReplacement(text, oldString, newString, all)).toEqual({ text: expected, replacements: count });
  });

  it.each([
    ["abc", "", "x", false, /old_string is empty/],
    ["abc", "b", "b", false, /identical/],
    ["abc", "z", "y", false, /was not found.*Read the file again/],
    ["  if (x) {\n    y();\n  }", "if (x) {\n  y();\n}", "z", false, /different whitespace or indentation/],
    ["one one", "one", "1", false, /occurs 2 times.*replace_all/],
  ])("in %j refuses to replace %j", (text, oldString, newString, all, message) => {
    expect(() => applyReplacement(text, oldString, newString, all)).toThrow(PatchError);
    expect(() => applyReplacement(text, oldString, newString, all)).toThrow(message);
  });
});

const FILE = ["line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10"].join("\n") + "\n";

describe("applyUnifiedDiff", () => {
  it("applies a hunk with headers and line numbers", () => {
    const patch = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE THREE\n line 4\n";
    expect(applyUnifiedDiff(FILE, patch)).toEqual({ text: FILE.replace("line 3\n", "LINE THREE\n"), hunks: 1 });
  });

  it("applies several hunks in order", () => {
    const patch = "@@ -1,2 +1,2 @@\n-line 1\n+first\n line 2\n@@ -9,2 +9,3 @@\n line 9\n line 10\n+line 11\n";
    const expected = FILE.replace("line 1\n", "first\n") + "line 11\n";
    expect(applyUnifiedDiff(FILE, patch)).toEqual({ text: expected, hunks: 2 });
  });

  it("finds a hunk whose line numbers are off", () => {
    const patch = "@@ -40,3 +40,3 @@\n line 5\n-line 6\n+six\n line 7\n";
    expect(applyUnifiedDiff(FILE, patch).text).toBe(FILE.replace("line 6\n", "six\n"));
  });

  it("tolerates wrong line counts in the header", () => {
    const patch = "@@ -5,1 +5,9 @@\n line 5\n-line 6\n+six\n";
    expect(applyUnifiedDiff(FILE, patch).text).toBe(FILE.replace("line 6\n", "six\n"));
  });

  it("accepts @@ without numbers when the context is unique", () => {
    const patch = "@@ @@\n line 4\n-line 5\n+five\n";
    expect(applyUnifiedDiff(FILE, patch).text).toBe(FILE.replace("line 5\n", "five\n"));
  });

  it("picks the occurrence nearest the line number when the context repeats", () => {
    const text = "x\nsame\nx\nsame\nx\n";
    expect(applyUnifiedDiff(text, "@@ -4,1 +4,1 @@\n-same\n+changed\n").text).toBe("x\nsame\nx\nchanged\nx\n");
    expect(applyUnifiedDiff(text, "@@ -2,1 +2,1 @@\n-same\n+changed\n").text).toBe("x\nchanged\nx\nsame\nx\n");
  });

  it("refuses repeated context without line numbers", () => {
    expect(() => applyUnifiedDiff("same\nsame\n", "@@ @@\n-same\n+x\n")).toThrow(/matches at lines 1, 2/);
  });

  it("inserts at the position a zero-length hunk names", () => {
    expect(applyUnifiedDiff("a\nb\n", "@@ -1,0 +2,1 @@\n+inserted\n").text).toBe("a\ninserted\nb\n");
    expect(applyUnifiedDiff("a\nb\n", "@@ -0,0 +1,1 @@\n+top\n").text).toBe("top\na\nb\n");
    expect(applyUnifiedDiff("", "@@ @@\n+only\n").text).toBe("only\n");
  });

  it("matches ignoring trailing whitespace but keeps the file's own context lines", () => {
    const text = "keep   \nold\n";
    expect(applyUnifiedDiff(text, "@@ -1,2 +1,2 @@\n keep\n-old\n+new\n").text).toBe("keep   \nnew\n");
  });

  it("treats an empty line inside a hunk as empty context", () => {
    const text = "a\n\nb\n";
    expect(applyUnifiedDiff(text, "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n").text).toBe("a\n\nc\n");
  });

  it("keeps CRLF line endings", () => {
    expect(applyUnifiedDiff("a\r\nb\r\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n").text).toBe("a\r\nc\r\n");
  });

  it("keeps a missing final newline unless the diff says otherwise", () => {
    expect(applyUnifiedDiff("a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n").text).toBe("a\nc");
    expect(applyUnifiedDiff("a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n").text).toBe("a\nc\n");
    expect(applyUnifiedDiff("a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n").text).toBe("a\nc");
  });

  it("strips a Markdown fence around the diff", () => {
    expect(applyUnifiedDiff("a\n", "```diff\n@@ -1 +1 @@\n-a\n+b\n```\n").text).toBe("b\n");
  });

  it("says which hunk does not apply and what it expected", () => {
    const patch = "@@ -1,1 +1,1 @@\n-line 1\n+one\n@@ -3,2 +3,2 @@\n line 3\n-nope\n+x\n";
    expect(() => applyUnifiedDiff(FILE, patch)).toThrow(/Hunk 2 \(@@ -3,2 \+3,2 @@\) does not apply.*after the previous hunk.*\n  line 3\n  nope/s);
  });

  it("does not let a later hunk match before an earlier one", () => {
    const patch = "@@ -5,1 +5,1 @@\n-line 5\n+five\n@@ -2,1 +2,1 @@\n-line 2\n+two\n";
    expect(() => applyUnifiedDiff(FILE, patch)).toThrow(/Hunk 2/);
  });

  it.each([
    ["no hunks", "--- a/x\n+++ b/x\n", /no @@ hunks/],
    ["two files", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", /more than one file/],
    ["two git files", "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\n", /more than one file/],
    ["file creation", "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n", /creates a new file.*write_file/],
    ["file deletion", "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", /deletes the file/],
    ["a stray line", "@@ -1 +1 @@\n-a\nstray\n+b\n", /Line 3 of the patch is not part of a hunk/],
    ["a bad header", "@@ -x +y @@\n-a\n", /not a valid hunk header/],
    ["V4A format", "*** Begin Patch\n*** Update File: x\n", /not a unified diff/],
    ["insertion without position", "@@ @@\n+x\n", /no context lines and no line numbers/],
  ])("refuses %s", (_, patch, message) => {
    expect(() => applyUnifiedDiff("a\n", patch)).toThrow(PatchError);
    expect(() => applyUnifiedDiff("a\n", patch)).toThrow(message);
  });
});

describe("parseUnifiedDiff", () => {
  it("reads paths, hunks and no-newline markers", () => {
    const parsed = parseUnifiedDiff("diff --git a/x b/x\nindex 1..2 100644\n--- a/src/x.ts\t2024-01-01\n+++ b/src/x.ts\n@@ -3,2 +3,2 @@ function f() {\n ctx\n-old\n\\ No newline at end of file\n+new\n");
    expect(parsed.oldPath).toBe("src/x.ts");
    expect(parsed.newPath).toBe("src/x.ts");
    expect(parsed.hunks).toEqual([
      {
        header: "@@ -3,2 +3,2 @@ function f() {",
        oldStart: 3,
        lines: [
          { op: " ", text: "ctx" },
          { op: "-", text: "old", noNewline: true },
          { op: "+", text: "new" },
        ],
      },
    ]);
  });
});
