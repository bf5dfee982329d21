import { describe, expect, it } from "vitest";
import { patchTool } from "../../../src/tools/patch.js";
import { FakeClient, fakeContext } from "./fakes.js";

const BEFORE = "function f() {\n  return 1;\n}\n";

function editor(content = BEFORE) {
  const writes: string[] = [];
  const client = new FakeClient()
    .on("fs/read_text_file", () => ({ content }))
    .on("fs/write_text_file", (params) => {
      writes.push(params.content as string);
      return {};
    });
  return { client, writes };
}

describe("patch", () => {
  it("replaces exact text and shows the real before/after", async () => {
    const { client, writes } = editor();
    const ctx = fakeContext(client);
    const outcome = await patchTool.run({ path: "/work/proj/f.ts", old_string: "return 1;", new_string: "return 2;" }, ctx);
    const after = "function f() {\n  return 2;\n}\n";
    expect(writes).toEqual([after]);
    expect(client.methods()).toEqual(["fs/read_text_file", "fs/write_text_file"]);
    const diff = { type: "diff", path: "/work/proj/f.ts", oldText: BEFORE, newText: after };
    expect(outcome.content).toEqual([diff]);
    expect(ctx.gateRequests).toEqual([{ kind: "edit", paths: ["/work/proj/f.ts"], title: "Edit /work/proj/f.ts", content: [diff] }]);
    expect(outcome.locations).toEqual([{ path: "/work/proj/f.ts", line: 2 }]);
    expect(outcome.output).toBe("Patched /work/proj/f.ts: replaced 1 occurrence. First change at line 2.");
  });

  it("applies a unified diff to the editor's content, never writing the patch text itself", async () => {
    const { client, writes } = editor();
    const patch = "--- a/f.ts\n+++ b/f.ts\n@@ -1,3 +1,4 @@\n function f() {\n-  return 1;\n+  // two\n+  return 2;\n }\n";
    const outcome = await patchTool.run({ path: "/work/proj/f.ts", patch }, fakeContext(client));
    const after = "function f() {\n  // two\n  return 2;\n}\n";
    expect(writes).toEqual([after]);
    expect(outcome.content).toEqual([{ type: "diff", path: "/work/proj/f.ts", oldText: BEFORE, newText: after }]);
    expect(outcome.output).toMatch(/applied 1 hunk\./);
  });

  it("replaces every occurrence with replace_all", async () => {
    const { client, writes } = editor("a a a");
    const outcome = await patchTool.run({ path: "/work/proj/x", old_string: "a", new_string: "b", replace_all: true }, fakeContext(client));
    expect(writes).toEqual(["b b b"]);
    expect(outcome.output).toMatch(/replaced 3 occurrences/);
  });

  it.each([
    [{ old_string: "return 3;", new_string: "x" }, /Could not patch \/work\/proj\/f.ts: old_string was not found/],
    [{ old_string: "\n", new_string: "x" }, /old_string occurs 3 times/],
    [{ patch: "@@ -1,1 +1,1 @@\n-nope\n+x\n" }, /Hunk 1 \(@@ -1,1 \+1,1 @@\) does not apply/],
    [{ patch: "@@ -1,1 +1,1 @@\n function f() {\n" }, /applies but changes nothing/],
  ])("fails clearly and writes nothing for %j", async (edit, message) => {
    const { client, writes } = editor();
    const ctx = fakeContext(client);
    await expect(patchTool.run({ path: "/work/proj/f.ts", ...edit }, ctx)).rejects.toThrow(message);
    expect(writes).toEqual([]);
    expect(ctx.gateRequests).toEqual([]);
  });

  it("reports a write the editor was already doing when the turn was cancelled as done, not as cancelled", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "one\ntwo\n" }));
    const ctx = fakeContext(client);
    client.on("fs/write_text_file", async () => {
      ctx.abort();
      await new Promise((resolve) => setTimeout(resolve, 5));
      return {};
    });
    const outcome = await patchTool.run({ path: "/work/proj/a.txt", old_string: "two", new_string: "2" }, ctx);
    expect(outcome.output).toBe("Patched /work/proj/a.txt: replaced 1 occurrence. First change at line 2.");
  });

  it("writes nothing when the gate denies", async () => {
    const { client, writes } = editor();
    const ctx = fakeContext(client, { deny: "Denied." });
    await expect(patchTool.run({ path: "/work/proj/f.ts", old_string: "1", new_string: "2" }, ctx)).rejects.toThrow("Denied.");
    expect(writes).toEqual([]);
  });

  it("fails with the editor's reason when the file cannot be read", async () => {
    const client = new FakeClient().fail("fs/read_text_file", "not found", -32002);
    await expect(patchTool.run({ path: "/work/proj/nope.ts", old_string: "a", new_string: "b" }, fakeContext(client))).rejects.toThrow(
      "The editor could not read /work/proj/nope.ts: not found [-32002]",
    );
    expect(client.methods()).toEqual(["fs/read_text_file"]);
  });

  it.each(["f.ts", "/work/proj/../f.ts", "/root/f.ts"])("refuses %j without asking the editor", async (path) => {
    const { client } = editor();
    await expect(patchTool.run({ path, old_string: "a", new_string: "b" }, fakeContext(client))).rejects.toThrow(/relative|escapes|outside/);
    expect(client.requests).toEqual([]);
  });

  it.each([
    [{ path: "/a" }, false],
    [{ path: "/a", old_string: "x" }, false],
    [{ path: "/a", new_string: "x" }, false],
    [{ path: "/a", old_string: "x", new_string: "y", patch: "@@" }, false],
    [{ path: "/a", old_string: "x", new_string: "" }, true],
    [{ path: "/a", patch: "@@ -1 +1 @@\n-a\n+b\n" }, true],
  ])("accepts exactly one edit form: %j → %s", (input, ok) => {
    expect(patchTool.inputSchema.safeParse(input).success).toBe(ok);
  });

  it("needs an editor that can both read and write", () => {
    expect(patchTool.kind).toBe("edit");
    expect(patchTool.title({ path: "/work/proj/f.ts", patch: "" })).toBe("Edit /work/proj/f.ts");
    expect(patchTool.available?.({ fs: { readTextFile: true, writeTextFile: true } })).toBe(true);
    expect(patchTool.available?.({ fs: { writeTextFile: true } })).toBe(false);
    expect(patchTool.available?.({ fs: { readTextFile: true } })).toBe(false);
  });
});
