import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { shellJoin, shellQuote } from "../../../src/tools/shell-quote.js";

describe("shellQuote", () => {
  it.each([
    ["plain", "plain"],
    ["src/a-b_c.ts", "src/a-b_c.ts"],
    ["", "''"],
    ["two words", "'two words'"],
    ["it's", `'it'\\''s'`],
    ["$HOME", "'$HOME'"],
    ["`id`", "'`id`'"],
    ["$(rm -rf /)", "'$(rm -rf /)'"],
    ["a;b", "'a;b'"],
    ["*.ts", "'*.ts'"],
    ["~", "'~'"],
    ["a=b", "'a=b'"],
    ["line\nbreak", "'line\nbreak'"],
    ['"quoted"', `'"quoted"'`],
    ["\\", "'\\'"],
  ])("quotes %j as %s", (word, expected) => {
    expect(shellQuote(word)).toBe(expected);
  });

  it("refuses a NUL byte", () => {
    expect(() => shellQuote("a\0b")).toThrow(/NUL/);
  });

  it("gives sh back exactly the words it was given", () => {
    const words = ["plain", "", "it's", "$HOME", "`id`", "a b\tc", "line\nbreak", "'", "''", "*", "-e", "\\n", "ü €"];
    const out = execFileSync("sh", ["-c", `printf '%s\\0' ${shellJoin(words)}`], { encoding: "utf8" });
    expect(out.split("\0").slice(0, -1)).toEqual(words);
  });
});
