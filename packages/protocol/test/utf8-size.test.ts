import { describe, expect, it } from "vitest";
import { jsonBytes, utf8Bytes } from "../src/utf8-size.js";

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
