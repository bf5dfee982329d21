import { describe, expect, it } from "vitest";
import { writeFileTool } from "../../../src/tools/write-file.js";
import { FakeClient, fakeContext } from "./fakes.js";

describe("write_file", () => {
  it("reads the old content, asks the gate with the real diff, then writes", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "old\n" })).on("fs/write_text_file", () => null);
    const ctx = fakeContext(client);
    const outcome = await writeFileTool.run({ path: "/work/proj/a.txt", content: "old\nnew\n" }, ctx);
    const diff = { type: "diff", path: "/work/proj/a.txt", oldText: "old\n", newText: "old\nnew\n" };
    expect(client.methods()).toEqual(["fs/read_text_file", "fs/write_text_file"]);
    expect(client.requests[1]?.params).toEqual({ sessionId: "sess-1", path: "/work/proj/a.txt", content: "old\nnew\n" });
    expect(ctx.gateRequests).toEqual([{ kind: "edit", paths: ["/work/proj/a.txt"], title: "Write /work/proj/a.txt", content: [diff] }]);
    expect(outcome.content).toEqual([diff]);
    expect(outcome.locations).toEqual([{ path: "/work/proj/a.txt", line: 2 }]);
    expect(outcome.output).toBe("Overwrote /work/proj/a.txt (2 lines, 8 characters).");
  });

  it("shows a new file with oldText null", async () => {
    const client = new FakeClient().fail("fs/read_text_file", "No such file or directory (os error 2)").on("fs/write_text_file", () => ({}));
    const ctx = fakeContext(client);
    const outcome = await writeFileTool.run({ path: "/work/proj/new.txt", content: "hi" }, ctx);
    expect(outcome.content).toEqual([{ type: "diff", path: "/work/proj/new.txt", oldText: null, newText: "hi" }]);
    expect(ctx.gateRequests[0]?.title).toBe("Write /work/proj/new.txt (new file)");
    expect(outcome.output).toBe("Created /work/proj/new.txt (1 line, 2 characters).");
  });

  it("writes without reading when the editor cannot read, and says the old content is unknown", async () => {
    const client = new FakeClient({ fs: { writeTextFile: true } }).on("fs/write_text_file", () => ({}));
    const ctx = fakeContext(client);
    const outcome = await writeFileTool.run({ path: "/work/proj/a.txt", content: "x" }, ctx);
    expect(client.methods()).toEqual(["fs/write_text_file"]);
    expect(ctx.gateRequests[0]?.title).toBe("Write /work/proj/a.txt (its current content could not be read: the editor cannot read files)");
    expect(outcome.output).toMatch(/^Wrote/);
  });

  it("does not write when the content is unchanged", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "same" }));
    const ctx = fakeContext(client);
    const outcome = await writeFileTool.run({ path: "/work/proj/a.txt", content: "same" }, ctx);
    expect(client.methods()).toEqual(["fs/read_text_file"]);
    expect(ctx.gateRequests).toEqual([]);
    expect(outcome.output).toMatch(/No change/);
  });

  it("does not write when the gate denies", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "a" })).on("fs/write_text_file", () => ({}));
    const ctx = fakeContext(client, { deny: "The user denied this edit." });
    await expect(writeFileTool.run({ path: "/work/proj/a.txt", content: "b" }, ctx)).rejects.toThrow("The user denied this edit.");
    expect(client.methods()).toEqual(["fs/read_text_file"]);
  });

  it.each(["a.txt", "/work/proj/../../etc/passwd", "/tmp/x", "/work/proj/\0"])("refuses %j without asking the editor", async (path) => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "" })).on("fs/write_text_file", () => ({}));
    const ctx = fakeContext(client);
    await expect(writeFileTool.run({ path, content: "x" }, ctx)).rejects.toThrow(/relative|escapes|outside|NUL/);
    expect(client.requests).toEqual([]);
    expect(ctx.gateRequests).toEqual([]);
  });

  it("reports a write the editor was already doing when the turn was cancelled as done, not as cancelled", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "a" }));
    const ctx = fakeContext(client);
    client.on("fs/write_text_file", async () => {
      ctx.abort(); // the user cancels while the editor writes; the editor still writes and answers
      await new Promise((resolve) => setTimeout(resolve, 5));
      return {};
    });
    const outcome = await writeFileTool.run({ path: "/work/proj/a.txt", content: "b" }, ctx);
    expect(outcome.output).toBe("Overwrote /work/proj/a.txt (1 line, 1 characters).");
  });

  it("does not send the write when the turn was cancelled while permission was being given", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "a" })).on("fs/write_text_file", () => ({}));
    const ctx = fakeContext(client);
    ctx.gate = async () => ctx.abort();
    await expect(writeFileTool.run({ path: "/work/proj/a.txt", content: "b" }, ctx)).rejects.toThrow(/cancelled/i);
    expect(client.methods()).toEqual(["fs/read_text_file"]);
  });

  it("fails with the editor's reason when the write fails", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "a" })).fail("fs/write_text_file", "read-only file system");
    await expect(writeFileTool.run({ path: "/work/proj/a.txt", content: "b" }, fakeContext(client))).rejects.toThrow(
      "The editor could not write /work/proj/a.txt: read-only file system [-32603]",
    );
  });

  it("renders as an edit of its path and is offered only to editors that can write", () => {
    expect(writeFileTool.kind).toBe("edit");
    expect(writeFileTool.title({ path: "/work/proj/a.txt", content: "" })).toBe("Write /work/proj/a.txt");
    expect(writeFileTool.locations?.({ path: "/work/proj/a.txt", content: "" }, { cwd: "/work/proj" })).toEqual([{ path: "/work/proj/a.txt" }]);
    expect(writeFileTool.available?.({ fs: { writeTextFile: true } })).toBe(true);
    expect(writeFileTool.available?.({ fs: { readTextFile: true } })).toBe(false);
  });
});
