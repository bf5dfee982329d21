import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { decorateSubagentUpdate, editorParams, isRelayed, relayedToolCallId } from "../../../src/delegate/relay.js";

const ids = { parentSessionId: "parent-1", subagentId: "sub-1", parentToolCallId: "call_delegate" };

describe("relaying a child's updates", () => {
  it("relays tool calls and their updates, not text", () => {
    expect(isRelayed({ sessionUpdate: "tool_call", toolCallId: "c", title: "t" })).toBe(true);
    expect(isRelayed({ sessionUpdate: "tool_call_update", toolCallId: "c" })).toBe(true);
    expect(isRelayed({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } })).toBe(false);
  });

  it("gives a child's tool call an id of its own and names the sub-agent and the delegate call", () => {
    const update: SessionUpdate = { sessionUpdate: "tool_call", toolCallId: "call_mock_0", title: "Read /a", kind: "read", status: "pending" };
    expect(decorateSubagentUpdate(update, ids)).toEqual({
      ...update,
      toolCallId: "sub-1/call_mock_0",
      _meta: { hermes: { subagentId: "sub-1", parentToolCallId: "call_delegate" } },
    });
  });

  it("keeps the nesting of a call relayed from deeper down, with ids made unique at this level", () => {
    const fromGrandchild: SessionUpdate = {
      sessionUpdate: "tool_call_update",
      toolCallId: "grand-1/call_0",
      status: "completed",
      _meta: { other: 1, hermes: { subagentId: "grand-1", parentToolCallId: "call_inner", seq: 3 } },
    };
    expect(decorateSubagentUpdate(fromGrandchild, ids)).toEqual({
      ...fromGrandchild,
      toolCallId: "sub-1/grand-1/call_0",
      _meta: { other: 1, hermes: { subagentId: "grand-1", parentToolCallId: "sub-1/call_inner", seq: 3 } },
    });
  });

  it("builds relayed ids as subagent/toolCall", () => {
    expect(relayedToolCallId("s", "c")).toBe("s/c");
  });
});

describe("a child's request to the editor", () => {
  it("carries the parent's session id, the only one the editor knows", () => {
    expect(editorParams("fs/read_text_file", { sessionId: "sub-1", path: "/a" }, ids)).toEqual({ sessionId: "parent-1", path: "/a" });
  });

  it("for permission, also points at the relayed tool call and names the sub-agent", () => {
    const params = { sessionId: "sub-1", toolCall: { toolCallId: "call_0", title: "[sub-agent 1] Write /a" }, options: [] };
    expect(editorParams("session/request_permission", params, ids)).toEqual({
      sessionId: "parent-1",
      toolCall: { toolCallId: "sub-1/call_0", title: "[sub-agent 1] Write /a" },
      options: [],
      _meta: { hermes: { subagentId: "sub-1", parentToolCallId: "call_delegate" } },
    });
  });
});
