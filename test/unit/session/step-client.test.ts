import { describe, expect, it } from "vitest";
import { stepClient } from "../../../src/session/step-client.js";
import type { ClientPort, ClientRequestOptions } from "../../../src/tools/tool.js";

/** Records what reaches the editor, and opens each request under the id it is given or the next fresh one. */
function editor(prefix = "fresh") {
  let next = 1;
  const sent: { method: string; id: string }[] = [];
  const port: ClientPort = {
    capabilities: { fs: { readTextFile: true } },
    async request(method: string, _params: unknown, options: ClientRequestOptions = {}) {
      const id = options.id ?? `${prefix}-${next++}`;
      options.opened?.(id);
      sent.push({ method, id });
      return null;
    },
  };
  return { port, sent };
}

/** The part of `TurnSteps` the client uses, kept in a map as storage would keep it across a restart. */
function steps() {
  const stored = new Map<string, string>();
  return {
    stored,
    requestId: (toolCallId: string, key: string) => stored.get(`${toolCallId} ${key}`),
    asked: (toolCallId: string, key: string, id: string) => void stored.set(`${toolCallId} ${key}`, id),
  };
}

describe("stepClient", () => {
  it("keeps each request's id by method and order within the tool call", async () => {
    const { port, sent } = editor();
    const kept = steps();
    const client = stepClient(port, kept, "call-1");
    await client.request("session/request_permission", {});
    await client.request("fs/write_text_file", {});
    await client.request("fs/write_text_file", {});
    expect(sent.map((s) => s.id)).toEqual(["fresh-1", "fresh-2", "fresh-3"]);
    expect(Object.fromEntries(kept.stored)).toEqual({
      "call-1 session/request_permission#0": "fresh-1",
      "call-1 fs/write_text_file#0": "fresh-2",
      "call-1 fs/write_text_file#1": "fresh-3",
    });
    expect(client.capabilities).toEqual({ fs: { readTextFile: true } });
  });

  it("asks again under the same ids when the call runs again after a restart, and fresh ones for what it had not asked", async () => {
    const kept = steps();
    await stepClient(editor().port, kept, "call-1").request("session/request_permission", {});
    const after = editor("restarted");
    const again = stepClient(after.port, kept, "call-1");
    await again.request("session/request_permission", {});
    await again.request("fs/write_text_file", {});
    expect(after.sent).toEqual([
      { method: "session/request_permission", id: "fresh-1" },
      { method: "fs/write_text_file", id: "restarted-1" },
    ]);
  });

  it("never gives a request of one method the id of another's (a permission remembered meanwhile is not asked again)", async () => {
    const kept = steps();
    await stepClient(editor().port, kept, "call-1").request("session/request_permission", {});
    const after = editor("restarted");
    await stepClient(after.port, kept, "call-1").request("fs/write_text_file", {});
    expect(after.sent).toEqual([{ method: "fs/write_text_file", id: "restarted-1" }]);
  });

  it("keeps another tool call's ids apart", async () => {
    const kept = steps();
    await stepClient(editor().port, kept, "call-1").request("fs/read_text_file", {});
    const after = editor("restarted");
    await stepClient(after.port, kept, "call-2").request("fs/read_text_file", {});
    expect(kept.requestId("call-2", "fs/read_text_file#0")).toBe(after.sent[0]!.id);
    expect(kept.requestId("call-1", "fs/read_text_file#0")).toBe("fresh-1");
  });
});
