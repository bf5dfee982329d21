import { describe, expect, it } from "vitest";
import { formatSize, jsonBytes, utf8Bytes } from "../src/utf8-size.js";

describe("utf8Bytes and jsonBytes", () => {
  it("count UTF-8 bytes, not UTF-16 code units", () => {
    expect(utf8Bytes("abc")).toBe(3);
    expect(utf8Bytes("é")).toBe(2);
    expect(utf8Bytes("€")).toBe(3);
    expect(utf8Bytes("😀")).toBe(4); // two code units
    expect(utf8Bytes("\ud800")).toBe(3); // a lone surrogate becomes U+FFFD
  });

  it("measure a value as the JSON it travels as", () => {
    expect(jsonBytes({ text: "é\n" })).toBe('{"text":"é\\n"}'.length + 1);
    expect(jsonBytes("\ud800")).toBe(8); // JSON.stringify escapes it: "\ud800"
    expect(jsonBytes(undefined)).toBe(0);
  });
});

describe("formatSize", () => {
  it("says a size in B, KB or MB, with one decimal only where it is not whole", () => {
    expect(formatSize(12)).toBe("12 B");
    expect(formatSize(65_536)).toBe("64 KB");
    expect(formatSize(4 * 1024 * 1024)).toBe("4 MB");
    expect(formatSize(5_306_197)).toBe("5.1 MB");
  });
});
