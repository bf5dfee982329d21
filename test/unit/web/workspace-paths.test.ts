import { describe, expect, it } from "vitest";
import { folderName, joinFolder, locate, normalizeFolder, relativeTo } from "../../../web/src/app/workspace/workspace-paths.js";

describe("the browser workspace's folders", () => {
  it("keeps /workspace where it always was, and gives every other folder its own escaped name", () => {
    expect(folderName("/workspace")).toBe("workspace");
    expect(folderName("/home/me/app")).toBe("home%2Fme%2Fapp");
    expect(folderName("/")).toBe("%2F");
    expect(folderName("/a%2Fb")).not.toBe(folderName("/a/b"));
  });

  it("normalizes a folder, and takes only absolute POSIX paths", () => {
    expect(normalizeFolder("/a/./b//c/")).toBe("/a/b/c");
    expect(normalizeFolder("/a/../b")).toBe("/b");
    expect(normalizeFolder("relative")).toBeNull();
    expect(normalizeFolder("C:\\proj")).toBeNull();
  });

  it("joins and splits paths against a folder, the root included", () => {
    expect(joinFolder("/home/me", "/notes.md")).toBe("/home/me/notes.md");
    expect(joinFolder("/", "notes.md")).toBe("/notes.md");
    expect(relativeTo("/home/me", "/home/me/src/a.ts")).toBe("src/a.ts");
    expect(relativeTo("/", "/a.ts")).toBe("a.ts");
  });
});

describe("locate", () => {
  it("maps a path under the session's cwd to that folder and its segments", () => {
    expect(locate("/home/me/app/src/a.ts", ["/home/me/app"])).toEqual({ folder: "/home/me/app", segments: ["src", "a.ts"] });
    expect(locate("/workspace/./a//b.txt", ["/workspace/"])).toEqual({ folder: "/workspace", segments: ["a", "b.txt"] });
  });

  it("picks the deepest of the session's folders that holds the path", () => {
    expect(locate("/p/lib/x.ts", ["/p", "/p/lib"])).toEqual({ folder: "/p/lib", segments: ["x.ts"] });
    expect(locate("/p/x.ts", ["/p", "/p/lib"])).toEqual({ folder: "/p", segments: ["x.ts"] });
  });

  it.each([
    ["/etc/passwd", ["/home/me/app"], "/etc/passwd is outside the folder this session works in (/home/me/app): the browser workspace serves only that."],
    ["/home/me/application/x", ["/home/me/app"], "is outside the folder this session works in"],
    ["/home/me/app/../secret", ["/home/me/app"], "is outside the folder this session works in"],
    ["relative.txt", ["/workspace"], "is outside the folder this session works in"],
    ["/workspace/", ["/workspace"], "/workspace/ is the session's folder itself, not a file in it."],
    ["/workspace/notes\\draft.md", ["/workspace"], 'its names may not contain "\\".'],
    ["/x/a.txt", [], "The browser workspace has no folder for this session"],
    ["C:\\proj\\a.txt", ["C:\\proj"], "The browser workspace cannot hold C:\\proj: it keeps only folders named by an absolute path such as /workspace."],
  ])("refuses %s with -32602 in words, with no JSON-RPC prefix", (path, folders, message) => {
    let thrown: unknown;
    try {
      locate(path, folders);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ code: -32602, message: expect.stringContaining(message) });
    expect((thrown as Error).message).not.toMatch(/^Invalid params/);
    expect((thrown as { data?: unknown }).data).toBeUndefined();
  });
});
