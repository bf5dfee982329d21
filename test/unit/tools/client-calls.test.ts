import { describe, expect, it } from "vitest";
import {
  createTerminal,
  describeClientError,
  readPriorContent,
  clientErrorWords,
  readTextFile,
  releaseTerminal,
  writeTextFile,
} from "../../../src/tools/client-calls.js";
import { ToolError } from "../../../src/tools/tool.js";
import { FakeClient, fakeContext } from "./fakes.js";

describe("client calls", () => {
  it.each([
    ["fs/read_text_file", { fs: { writeTextFile: true }, terminal: true }, (c: FakeClient) => readTextFile(fakeContext(c), "/work/proj/a")],
    ["fs/write_text_file", { fs: { readTextFile: true }, terminal: true }, (c: FakeClient) => writeTextFile(fakeContext(c), "/work/proj/a", "x")],
    ["terminal/create", { fs: { readTextFile: true, writeTextFile: true } }, (c: FakeClient) => createTerminal(fakeContext(c), { command: "ls" })],
    ["terminal/release", { terminal: false }, (c: FakeClient) => releaseTerminal(fakeContext(c), "t")],
  ])("never sends %s without the capability", async (method, caps, send) => {
    const client = new FakeClient(caps).on(method, () => ({}));
    await expect(send(client)).rejects.toThrow(/did not advertise the (fs\.\w+|terminal) capability/);
    expect(client.requests).toEqual([]);
  });

  it("sends the session id, the path and the 1-based range", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "text" }));
    await expect(readTextFile(fakeContext(client), "/work/proj/a", { line: 3, limit: 2 })).resolves.toBe("text");
    expect(client.requests[0]?.params).toEqual({ sessionId: "sess-1", path: "/work/proj/a", line: 3, limit: 2 });
    expect(client.requests[0]?.options?.timeoutMs).toBeGreaterThan(0);
  });

  it("turns an editor error into a ToolError that says what failed", async () => {
    const client = new FakeClient().fail("fs/read_text_file", "Internal error", -32603, "permission denied");
    const err = await readTextFile(fakeContext(client), "/work/proj/a").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toBe("The editor could not read /work/proj/a: Internal error (permission denied) [-32603]");
  });

  it("rejects a malformed answer", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ text: "wrong field" }));
    await expect(readTextFile(fakeContext(client), "/work/proj/a")).rejects.toThrow(/answer to fs\/read_text_file was malformed/);
  });

  it.each([
    ["present", () => ({ content: "old" }), { state: "present", content: "old" }],
    ["absent (not found)", new Error("No such file or directory (os error 2)"), { state: "absent" }],
    ["absent (-32002)", { code: -32002, message: "Resource not found" }, { state: "absent" }],
    ["unknown (other error)", { code: -32603, message: "disk on fire" }, { state: "unknown", reason: "disk on fire" }],
  ])("reads prior content: %s", async (_, answer, expected) => {
    const client = new FakeClient();
    if (typeof answer === "function") client.on("fs/read_text_file", answer);
    else if (answer instanceof Error) client.on("fs/read_text_file", () => Promise.reject(answer));
    else client.fail("fs/read_text_file", answer.message, answer.code);
    await expect(readPriorContent(fakeContext(client), "/work/proj/a")).resolves.toEqual(expected);
  });

  it("does not try to read prior content without the read capability", async () => {
    const client = new FakeClient({ fs: { writeTextFile: true } });
    await expect(readPriorContent(fakeContext(client), "/work/proj/a")).resolves.toEqual({ state: "unknown", reason: "the editor cannot read files" });
    expect(client.requests).toEqual([]);
  });

  it("describes plain errors and error bodies", () => {
    expect(describeClientError(new Error("boom"))).toBe("boom");
    expect(describeClientError("text")).toBe("text");
    expect(describeClientError({ body: { code: 1, message: "m", data: { a: 1 } } })).toBe('m ({"a":1}) [1]');
  });

  it("gives a person only the editor's message, without the code and data", () => {
    expect(clientErrorWords({ body: { code: -32602, message: "/w/a is a directory", data: { path: "/w/a" } } })).toBe("/w/a is a directory");
    expect(clientErrorWords(new Error("boom"))).toBe("boom");
  });
});
