import { describe, expect, it } from "vitest";
import type { ForwardedRequest } from "../../../src/delegate/subagent-spec.js";
import { forwardFailure, forwardingClientPort } from "../../../src/delegate/forward-port.js";
import { ClientRequestError } from "../../../src/session/client-requests.js";
import { describeClientError } from "../../../src/tools/client-calls.js";
import { ToolError } from "../../../src/tools/tool.js";

describe("a sub-agent's client port", () => {
  it("forwards the request with its timeout and says whether it was cancellable", async () => {
    const sent: ForwardedRequest[] = [];
    const port = forwardingClientPort({ fs: { readTextFile: true } }, async (request) => {
      sent.push(request);
      return { ok: true, result: { content: "hello" } };
    });
    expect(port.capabilities).toEqual({ fs: { readTextFile: true } });
    await expect(port.request("fs/read_text_file", { path: "/a" }, { timeoutMs: 5, signal: new AbortController().signal })).resolves.toEqual({
      content: "hello",
    });
    await port.request("terminal/create", { command: "ls" }, { timeoutMs: 7 });
    expect(sent).toEqual([
      { method: "fs/read_text_file", params: { path: "/a" }, timeoutMs: 5, cancellable: true },
      { method: "terminal/create", params: { command: "ls" }, timeoutMs: 7, cancellable: false },
    ]);
  });

  it("rebuilds the editor's JSON-RPC error so tools describe it as in a root session", async () => {
    const body = { code: -32002, message: "Resource not found", data: "no such file" };
    const port = forwardingClientPort({}, async () => forwardFailure(new ClientRequestError(body)));
    const err = await port.request("fs/read_text_file", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientRequestError);
    expect(describeClientError(err)).toBe("Resource not found (no such file) [-32002]");
  });

  it("keeps a ToolError a ToolError, and anything else a plain error", async () => {
    const tool = forwardingClientPort({}, async () => forwardFailure(new ToolError("No editor is connected")));
    await expect(tool.request("fs/read_text_file", {})).rejects.toBeInstanceOf(ToolError);
    const other = forwardingClientPort({}, async () => forwardFailure(new Error("timed out")));
    const err = await other.request("fs/read_text_file", {}).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ToolError);
    expect((err as Error).message).toBe("timed out");
  });

  it("stops waiting as soon as its own signal aborts", async () => {
    const port = forwardingClientPort({}, () => new Promise(() => undefined));
    const controller = new AbortController();
    const pending = port.request("session/request_permission", {}, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: -32800 });
  });
});
