import { describe, expect, it } from "vitest";
import { generateApiKey, generateKeyId, looksLikeApiKey, secretsEqual, sha256Hex } from "../../../src/keys/api-key.js";

describe("managed key format", () => {
  it("is he_ plus 32 random bytes in base64url, a valid subprotocol token", () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(/^he_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key.slice(3), "base64url")).toHaveLength(32);
      expect(looksLikeApiKey(key)).toBe(true);
    }
    expect(generateKeyId()).toMatch(/^key_[A-Za-z0-9_-]{16}$/);
  });

  it("tells managed keys from other tokens by shape only", () => {
    for (const token of ["tok-alpha", "he_short", `he_${"a".repeat(44)}`, `he_${"a".repeat(42)}=`, `HE_${"a".repeat(43)}`]) expect(looksLikeApiKey(token), token).toBe(false);
  });

  it("hashes with SHA-256 (hex) and compares secrets of any length", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await secretsEqual("tok-alpha", "tok-alpha")).toBe(true);
    expect(await secretsEqual("tok-alpha", "tok-alphb")).toBe(false);
    expect(await secretsEqual("tok", "tok-alpha")).toBe(false);
    expect(await secretsEqual("", "")).toBe(true);
  });
});
