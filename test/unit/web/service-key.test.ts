import { describe, expect, it } from "vitest";
import { readServiceKey } from "../../../web/src/app/state/service-key.js";

const KEY = "he_" + "A".repeat(43);

describe("readServiceKey", () => {
  it("takes a managed key or a bare token as it is, trimmed, with or without 'Bearer'", () => {
    expect(readServiceKey(`  ${KEY}\n`)).toEqual({ ok: true, key: KEY });
    expect(readServiceKey("tok-web")).toEqual({ ok: true, key: "tok-web" });
    expect(readServiceKey("Bearer tok-web")).toEqual({ ok: true, key: "tok-web" });
  });

  it("takes the token of a tenant:token pair copied from .dev.vars", () => {
    expect(readServiceKey("web:tok-web")).toEqual({ ok: true, key: "tok-web" });
    expect(readServiceKey("ada@acme.dev:s3cr3t")).toEqual({ ok: true, key: "s3cr3t" });
  });

  it("takes the token of a tenant/user:token pair, the form that names a user", () => {
    expect(readServiceKey("acme/ada:tok-ada")).toEqual({ ok: true, key: "tok-ada" });
  });

  it.each([
    ["", "Enter a service key."],
    ["a:tok-a,b:tok-b", "That looks like a list of keys: sign in with one."],
    ["s3cret spaced q9zx", "That is not a service key"],
    ["tenant name:s3cretvalue", "That is not a service key"],
    ["ключ", "That is not a service key"],
  ])("refuses %j, says what to paste, and never repeats it", (input, start) => {
    const reading = readServiceKey(input);
    expect(reading.ok).toBe(false);
    const message = reading.ok ? "" : reading.message;
    expect(message.startsWith(start)).toBe(true);
    if (input) expect(message).toContain("he_");
    for (const part of input.split(/[\s,:]/).filter((p) => p.length > 2)) expect(message).not.toContain(part);
  });
});
