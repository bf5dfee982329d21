import { describe, expect, it } from "vitest";
import { watchEnd } from "../../../src/keys/key-watch.js";

describe("watchEnd", () => {
  it("closes a key's WebSocket with 4401 and answers its HTTP connection as the Worker refuses the key", () => {
    expect(watchEnd("key", "revoked")).toEqual({ closeCode: 4401, closeReason: "key revoked", message: "key revoked", reason: "revoked" });
    expect(watchEnd("key", "expired")).toEqual({ closeCode: 4401, closeReason: "key expired", message: "key expired", reason: "expired" });
  });
  it("closes a viewer link's with 4403 and the link's own refusal", () => {
    expect(watchEnd("link", "revoked")).toEqual({ closeCode: 4403, closeReason: "link revoked", message: "this link was revoked", reason: "revoked" });
    expect(watchEnd("link", "expired")).toEqual({ closeCode: 4403, closeReason: "link expired", message: "this link has expired", reason: "expired" });
  });
});
