import { describe, expect, it } from "vitest";
import { displayPath, isSensitivePath, resolveToolPath, tryResolveToolPath } from "../../../src/tools/path-policy.js";
import { ToolError } from "../../../src/tools/tool.js";

const posix = { cwd: "/work/proj", additionalDirectories: ["/work/lib/"] };
const windows = { cwd: "C:\\Users\\ada\\proj", additionalDirectories: ["\\\\server\\share\\docs"] };

describe("resolveToolPath", () => {
  it.each([
    ["/work/proj", "/work/proj"],
    ["/work/proj/", "/work/proj"],
    ["/work/proj/src/a.ts", "/work/proj/src/a.ts"],
    ["/work/proj//src///a.ts", "/work/proj/src/a.ts"],
    ["/work/proj/./src/./a.ts", "/work/proj/src/a.ts"],
    ["/work/proj/src/../lib/b.ts", "/work/proj/lib/b.ts"],
    ["/work/lib/x.ts", "/work/lib/x.ts"],
    ["/work/proj/dir with space/ü.ts", "/work/proj/dir with space/ü.ts"],
  ])("accepts %s as %s", (input, expected) => {
    expect(resolveToolPath(input, posix)).toBe(expected);
  });

  it.each([
    ["src/a.ts", /relative path.*\/work\/proj\/src\/a\.ts/],
    ["./src/a.ts", /relative path.*\/work\/proj\/src\/a\.ts/],
    ["~/.ssh/id_rsa", /relative path/],
    ["", /empty/],
    ["   ", /empty/],
    ["/work/proj/a\0b", /NUL byte/],
    ["/work/proj/../other/x", /escapes the workspace through "\.\.".*\/work\/other\/x/],
    ["/work/proj/../../../etc/passwd", /escapes the workspace.*\/etc\/passwd/],
    ["/etc/passwd", /outside the workspace.*\/work\/proj, \/work\/lib/],
    ["/work/proj-evil/x", /outside the workspace/],
    ["/work", /outside the workspace/],
    ["C:\\work\\proj\\a.ts", /outside the workspace/],
  ])("refuses %j", (input, message) => {
    expect(() => resolveToolPath(input, posix)).toThrow(ToolError);
    expect(() => resolveToolPath(input, posix)).toThrow(message);
  });

  it.each([
    ["C:\\Users\\ada\\proj\\src\\a.ts", "C:\\Users\\ada\\proj\\src\\a.ts"],
    ["c:/users/ADA/proj/src/a.ts", "C:\\users\\ADA\\proj\\src\\a.ts"],
    ["C:\\Users\\ada\\proj\\src\\..\\b.ts", "C:\\Users\\ada\\proj\\b.ts"],
    ["\\\\server\\share\\docs\\x.md", "\\\\server\\share\\docs\\x.md"],
  ])("accepts the Windows path %s as %s", (input, expected) => {
    expect(resolveToolPath(input, windows)).toBe(expected);
  });

  it.each([
    ["D:\\Users\\ada\\proj\\a.ts", /outside/],
    ["C:\\Users\\ada\\proj\\..\\other\\a.ts", /escapes/],
    ["/Users/ada/proj/a.ts", /outside/],
    ["src\\a.ts", /relative path.*C:\\Users\\ada\\proj\\src\\a\.ts/],
  ])("refuses the Windows path %s", (input, message) => {
    expect(() => resolveToolPath(input, windows)).toThrow(message);
  });

  it("accepts anything absolute when the workspace is the root", () => {
    expect(resolveToolPath("/etc/hosts", { cwd: "/", additionalDirectories: [] })).toBe("/etc/hosts");
  });

  it("returns null instead of throwing for rendering", () => {
    expect(tryResolveToolPath("../x", { cwd: "/work/proj" })).toBeNull();
    expect(tryResolveToolPath("/work/lib/a", { cwd: "/work/proj", additionalDirectories: ["/work/lib"] })).toBe("/work/lib/a");
  });
});

describe("isSensitivePath", () => {
  it.each([
    ["/work/proj/.git/config", true],
    ["/work/proj/.git", true],
    ["/work/proj/sub/.git/hooks/pre-commit", true],
    ["/home/ada/.ssh/known_hosts", true],
    ["/work/proj/.env", true],
    ["/work/proj/.env.local", true],
    ["/work/proj/.env.production", true],
    ["/work/proj/config/.ENV", true],
    ["/home/ada/keys/id_rsa", true],
    ["/home/ada/keys/id_ed25519", true],
    ["/work/proj/certs/server.pem", true],
    ["C:\\proj\\.git\\HEAD", true],
    ["C:\\proj\\certs\\KEY.PEM", true],
    // Windows drops a segment's trailing dots and spaces and opens a name's main stream for `name::$DATA`.
    ["C:\\proj\\.git.\\hooks\\pre-commit", true],
    ["C:\\proj\\.env ", true],
    ["C:\\proj\\.env..", true],
    ["C:\\proj\\.env::$DATA", true],
    ["C:\\keys\\id_rsa.", true],
    ["C:\\certs\\server.pem ", true],
    ["/work/proj/src/env.ts", false],
    ["/work/proj/.environment", false],
    ["/work/proj/.gitignore", false],
    ["/work/proj/.github/workflows/ci.yml", false],
    ["/work/proj/id_rsa.pub", false],
    ["/work/proj/pem.ts", false],
    ["/", false],
  ])("%s → %s", (path, expected) => {
    expect(isSensitivePath(path)).toBe(expected);
  });
});

describe("displayPath", () => {
  it.each([
    ["/work/proj", "."],
    ["/work/proj/src", "src"],
    ["/work/lib/x", "/work/lib/x"],
    ["C:\\Users\\ada\\proj\\src", "C:\\Users\\ada\\proj\\src"],
  ])("shows %s as %s from /work/proj", (path, expected) => {
    expect(displayPath(path, "/work/proj")).toBe(expected);
  });
});
