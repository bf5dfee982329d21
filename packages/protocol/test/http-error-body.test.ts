import { describe, expect, it } from "vitest";
import { httpErrorMessage } from "../src/index.js";

describe("httpErrorMessage", () => {
  it.each([
    ["the service's error body: its message", '{"error":{"code":-32000,"message":"key revoked","data":{"reason":"revoked"}}}', "key revoked"],
    ["an empty message: as it is", '{"error":{"message":""}}', ""],
    ["JSON of another shape: none", '{"detail":"go away"}', undefined],
    ["an error that is a string: none", '{"error":"nope"}', undefined],
    ["plain text: none", "unauthorized", undefined],
    ["nothing: none", "", undefined],
  ])("%s", (_what, text, message) => {
    expect(httpErrorMessage(text)).toBe(message);
  });
});
