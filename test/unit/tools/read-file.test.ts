import { describe, expect, it } from "vitest";
import { readFileTool } from "../../../src/tools/read-file.js";
import { PREVIEW_CHARS } from "../../../src/tools/render.js";
import { FakeClient, fakeContext } from "./fakes.js";

const text = (block: unknown) => (block as { content: { text: string } }).content.text;

describe("read_file", () => {
  it("reads through fs/read_text_file and shows a preview", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "export const a = 1;\n" }));
    const outcome = await readFileTool.run({ path: "/work/proj/src/a.ts", line: 10, limit: 5 }, fakeContext(client));
    expect(client.requests).toHaveLength(1);
    expect(client.requests[0]).toMatchObject({
      method: "fs/read_text_file",
      params: { sessionId: "sess-1", path: "/work/proj/src/a.ts", line: 10, limit: 5 },
    });
    expect(outcome.output).toBe("export const a = 1;\n");
    expect(outcome.content).toEqual([{ type: "content", content: { type: "text", text: "export const a = 1;\n" } }]);
    expect(outcome.locations).toEqual([{ path: "/work/proj/src/a.ts", line: 10 }]);
  });

  it("renders a title with the line range and locations for the editor", () => {
    expect(readFileTool.kind).toBe("read");
    expect(readFileTool.title({ path: "/work/proj/a.ts" })).toBe("Read /work/proj/a.ts");
    expect(readFileTool.title({ path: "/work/proj/a.ts", line: 10, limit: 5 })).toBe("Read /work/proj/a.ts (lines 10–14)");
    expect(readFileTool.title({ path: "/work/proj/a.ts", line: 7 })).toBe("Read /work/proj/a.ts (from line 7)");
    expect(readFileTool.locations?.({ path: "/work/proj/./a.ts", line: 3 }, { cwd: "/work/proj" })).toEqual([{ path: "/work/proj/a.ts", line: 3 }]);
    expect(readFileTool.locations?.({ path: "../etc/passwd" }, { cwd: "/work/proj" })).toEqual([]);
  });

  it.each(["src/a.ts", "/work/proj/../secret", "/etc/passwd", "/work/proj/a\0"])("refuses %j without asking the editor", async (path) => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "x" }));
    await expect(readFileTool.run({ path }, fakeContext(client))).rejects.toThrow(/relative|escapes|outside|NUL/);
    expect(client.requests).toEqual([]);
  });

  it("reads files in additional directories", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "lib" }));
    await expect(readFileTool.run({ path: "/work/lib/x.ts" }, fakeContext(client))).resolves.toMatchObject({ output: "lib" });
  });

  it("truncates the preview at about 5,000 characters and the model's copy at 100,000, saying so", async () => {
    const big = "x".repeat(150_000);
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: big }));
    const outcome = await readFileTool.run({ path: "/work/proj/big.txt" }, fakeContext(client));
    const preview = text(outcome.content?.[0]);
    expect(preview.length).toBeLessThan(PREVIEW_CHARS + 100);
    expect(preview).toContain("145,000 more characters not shown");
    expect(outcome.output.startsWith("x".repeat(100_000))).toBe(true);
    expect(outcome.output).toContain("[Truncated: 50,000 more characters not included (limit 100,000). Read the rest with `line` and `limit`.]");
    expect(outcome.rawOutput).toEqual({ path: "/work/proj/big.txt", characters: 150_000, truncatedForModel: true });
  });

  it("says when the file or the range is empty", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "" }));
    await expect(readFileTool.run({ path: "/work/proj/e" }, fakeContext(client))).resolves.toMatchObject({ output: "(the file is empty)" });
    await expect(readFileTool.run({ path: "/work/proj/e", line: 99 }, fakeContext(client))).resolves.toMatchObject({
      output: "(no lines in the requested range)",
    });
  });

  it("fails with the editor's reason", async () => {
    const client = new FakeClient().fail("fs/read_text_file", "file not found", -32002);
    await expect(readFileTool.run({ path: "/work/proj/nope" }, fakeContext(client))).rejects.toThrow(
      "The editor could not read /work/proj/nope: file not found [-32002]",
    );
  });

  it("is offered only to editors that can read files", () => {
    expect(readFileTool.available?.({ fs: { readTextFile: true } })).toBe(true);
    expect(readFileTool.available?.({ fs: { writeTextFile: true } })).toBe(false);
    expect(readFileTool.available?.({})).toBe(false);
  });

  it("validates its input", () => {
    expect(readFileTool.inputSchema.safeParse({ path: "/a", line: 0 }).success).toBe(false);
    expect(readFileTool.inputSchema.safeParse({ path: "/a", limit: 1.5 }).success).toBe(false);
    expect(readFileTool.inputSchema.safeParse({ path: "" }).success).toBe(false);
  });
});
