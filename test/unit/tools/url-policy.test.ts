import { describe, expect, it } from "vitest";
import { ToolError } from "../../../src/tools/tool.js";
import { checkFetchUrl, isPrivateHost } from "../../../src/tools/url-policy.js";

describe("checkFetchUrl", () => {
  it.each(["https://example.com/", "http://example.com:8080/a?b=c", "https://docs.python.org/3/", "https://93.184.216.34/", "https://[2606:4700::1111]/"])(
    "accepts %s",
    (url) => {
      expect(checkFetchUrl(url).href).toBe(new URL(url).href);
    },
  );

  it.each([
    ["not a url", /not a valid URL/],
    ["/relative/path", /not a valid URL/],
    ["file:///etc/passwd", /Only http:\/\/ and https:\/\//],
    ["ftp://example.com/", /Only http/],
    ["javascript:alert(1)", /Only http/],
    ["data:text/plain,hi", /Only http/],
    ["http://localhost:8787/", /local or private/],
    ["http://LOCALHOST./", /local or private/],
    ["http://app.localhost/", /local or private/],
    ["http://127.0.0.1/", /local or private/],
    ["http://127.1.2.3/", /local or private/],
    ["http://2130706433/", /local or private/],
    ["http://0x7f.1/", /local or private/],
    ["http://0.0.0.0/", /local or private/],
    ["http://10.1.2.3/", /local or private/],
    ["http://172.16.0.1/", /local or private/],
    ["http://172.31.255.255/", /local or private/],
    ["http://192.168.1.1/", /local or private/],
    ["http://169.254.169.254/latest/meta-data/", /local or private/],
    ["http://100.64.0.1/", /local or private/],
    ["http://[::1]/", /local or private/],
    ["http://[::]/", /local or private/],
    ["http://[::ffff:127.0.0.1]/", /local or private/],
    ["http://[::ffff:10.0.0.1]/", /local or private/],
    ["http://[fd00::1]/", /local or private/],
    ["http://[fe80::1]/", /local or private/],
    ["http://printer.local/", /local or private/],
    ["http://db.internal/", /local or private/],
    ["http://metadata.google.internal/", /local or private/],
  ])("refuses %s", (url, message) => {
    expect(() => checkFetchUrl(url)).toThrow(ToolError);
    expect(() => checkFetchUrl(url)).toThrow(message);
  });
});

describe("isPrivateHost", () => {
  it.each([
    ["172.15.0.1", false],
    ["172.32.0.1", false],
    ["11.0.0.1", false],
    ["192.169.0.1", false],
    ["100.128.0.1", false],
    ["example.local.com", false],
    ["internal.example.com", false],
    ["[2001:db8::1]", false],
    ["[::ffff:8.8.8.8]", false],
    ["[::ffff:808:808]", false],
    ["[fc00::]", true],
    ["[ff02::1]", true],
    ["[::ffff:7f00:1]", true],
    ["[not-an-ip]", true],
  ])("%s → %s", (host, expected) => {
    expect(isPrivateHost(host)).toBe(expected);
  });
});
