import { describe, expect, it } from "vitest";
import { encodeLine, LineDecoder } from "../src/line-framing.js";

const texts = (lines: ReturnType<LineDecoder["push"]>) => lines.map((l) => (l.kind === "line" ? l.text : `<${l.kind}>`));

describe("LineDecoder", () => {
  it("splits complete lines and keeps a partial line for the next chunk", () => {
    const decoder = new LineDecoder();
    expect(texts(decoder.push(Buffer.from('{"a":1}\n{"b"')))).toEqual(['{"a":1}']);
    expect(texts(decoder.push(Buffer.from(':2}\n')))).toEqual(['{"b":2}']);
  });

  it("accepts CRLF line endings and skips blank lines", () => {
    const decoder = new LineDecoder();
    expect(texts(decoder.push(Buffer.from('{"a":1}\r\n\n  \n{"b":2}\n')))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("does not split a multi-byte character cut across chunks", () => {
    const decoder = new LineDecoder();
    const bytes = Buffer.from('{"t":"héllo ✓"}\n');
    const cut = bytes.indexOf(0xe2) + 1; // inside the 3-byte check mark
    expect(texts(decoder.push(bytes.subarray(0, cut)))).toEqual([]);
    expect(texts(decoder.push(bytes.subarray(cut)))).toEqual(['{"t":"héllo ✓"}']);
  });

  it("reports an oversized line once, skips it to its newline, and resumes", () => {
    const decoder = new LineDecoder(16);
    const out = [
      ...decoder.push(Buffer.from('{"ok":1}\n' + "x".repeat(10))),
      ...decoder.push(Buffer.from("y".repeat(10))),
      ...decoder.push(Buffer.from("z".repeat(40) + '\n{"ok":2}\n')),
    ];
    expect(texts(out)).toEqual(['{"ok":1}', "<too_large>", '{"ok":2}']);
  });

  it("accepts a line of exactly the maximum size", () => {
    const decoder = new LineDecoder(8);
    expect(texts(decoder.push(Buffer.from("12345678\n")))).toEqual(["12345678"]);
    expect(texts(decoder.push(Buffer.from("123456789\n")))).toEqual(["<too_large>"]);
  });

  it("flushes a final line without a newline at end of input", () => {
    const decoder = new LineDecoder();
    expect(decoder.push(Buffer.from('{"last":true}'))).toEqual([]);
    expect(texts(decoder.end())).toEqual(['{"last":true}']);
  });
});

describe("encodeLine", () => {
  it("appends a newline and leaves compact JSON byte-for-byte unchanged", () => {
    expect(encodeLine('{"a" : 1}')).toBe('{"a" : 1}\n');
  });

  it("re-serializes pretty-printed JSON so a frame stays on one line", () => {
    expect(encodeLine('{\n  "a": "x\\ny"\n}')).toBe('{"a":"x\\ny"}\n');
  });
});
