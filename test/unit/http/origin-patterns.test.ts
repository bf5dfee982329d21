import { describe, expect, it } from "vitest";
import { DEFAULT_ALLOWED_ORIGINS, originAllowed, parseAllowedOrigins, type OriginPattern } from "../../../src/http/origin-patterns.js";

const SELF = "https://edge.example.workers.dev";

function patterns(raw: string | undefined): OriginPattern[] {
  const parsed = parseAllowedOrigins(raw);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.patterns;
}

const allowed = (raw: string | undefined, origin: string) => originAllowed(origin, patterns(raw), SELF);

describe("parseAllowedOrigins", () => {
  it("falls back to localhost and 127.0.0.1 on any port when unset or blank", () => {
    expect(patterns(undefined)).toEqual(patterns(DEFAULT_ALLOWED_ORIGINS.join(",")));
    expect(patterns("  ")).toEqual(patterns(undefined));
    expect(patterns(undefined)).toEqual([
      { scheme: "http", labels: ["localhost"], port: "*" },
      { scheme: "http", labels: ["127", "0", "0", "1"], port: "*" },
    ]);
  });

  it("reads a comma list with spaces, upper case and the scheme's default port", () => {
    expect(patterns(" https://IDE.example.com , https://*.example.com:8443,vscode-webview://abc ")).toEqual([
      { scheme: "https", labels: ["ide", "example", "com"], port: "443" },
      { scheme: "https", labels: ["*", "example", "com"], port: "8443" },
      { scheme: "vscode-webview", labels: ["abc"], port: "" },
    ]);
  });

  it.each([
    ["https://ide.example.com/", "a path"],
    ["ide.example.com", "no scheme"],
    ["https://ide*.example.com", "a partial wildcard"],
    ["https://ide.example.com:99999x", "a bad port"],
    ["*", "a bare wildcard"],
  ])("refuses %s (%s) and names the variable", (entry, _why) => {
    const parsed = parseAllowedOrigins(`https://ok.example.com,${entry}`);
    expect(parsed).toEqual({ ok: false, message: expect.stringContaining("HERMES_ALLOWED_ORIGINS") });
    expect(parsed.ok || parsed.message).toContain(`"${entry.toLowerCase()}" is not an origin pattern`);
  });
});

describe("originAllowed", () => {
  it("allows the service's own origin whatever the list says", () => {
    expect(allowed("https://ide.example.com", SELF)).toBe(true);
  });

  it("allows localhost and 127.0.0.1 on any port by default, and nothing else", () => {
    expect(allowed(undefined, "http://localhost:5173")).toBe(true);
    expect(allowed(undefined, "http://localhost")).toBe(true);
    expect(allowed(undefined, "http://127.0.0.1:8787")).toBe(true);
    expect(allowed(undefined, "https://localhost:5173")).toBe(false);
    expect(allowed(undefined, "http://127.0.0.2:8787")).toBe(false);
    expect(allowed(undefined, "http://localhost.evil.com:80")).toBe(false);
    expect(allowed(undefined, "https://ide.example.com")).toBe(false);
  });

  it("lets * stand for exactly one subdomain label", () => {
    const list = "https://*.example.com";
    expect(allowed(list, "https://ide.example.com")).toBe(true);
    expect(allowed(list, "https://a.b.example.com")).toBe(false);
    expect(allowed(list, "https://example.com")).toBe(false);
    expect(allowed(list, "https://ide.example.com.evil.net")).toBe(false);
    expect(allowed(list, "https://ide.example.com:8443")).toBe(false);
  });

  it("matches the port exactly unless it is *", () => {
    expect(allowed("https://ide.example.com:8443", "https://ide.example.com:8443")).toBe(true);
    expect(allowed("https://ide.example.com:8443", "https://ide.example.com")).toBe(false);
    expect(allowed("https://ide.example.com", "https://ide.example.com")).toBe(true);
    expect(allowed("https://ide.example.com:*", "https://ide.example.com:1")).toBe(true);
  });

  it("replaces the defaults when the variable is set", () => {
    expect(allowed("https://ide.example.com", "http://localhost:5173")).toBe(false);
  });

  it("never allows null, a URL with a path or garbage", () => {
    expect(allowed(undefined, "null")).toBe(false);
    expect(allowed(undefined, "http://localhost:5173/page")).toBe(false);
    expect(allowed(undefined, "not an origin")).toBe(false);
    expect(allowed(undefined, "")).toBe(false);
  });

  it("matches bracketed IPv6 hosts literally", () => {
    expect(allowed("http://[::1]:*", "http://[::1]:3000")).toBe(true);
    expect(allowed(undefined, "http://[::1]:3000")).toBe(false);
  });
});
