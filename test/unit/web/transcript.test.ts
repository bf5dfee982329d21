import type { SessionConfigOption, SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { addLocalPrompt, applyUpdate, childCalls, emptyTranscript, setPromptState, type Transcript } from "../../../web/src/app/state/transcript.js";

let seq = 0;
const n = (update: SessionUpdate, meta?: Record<string, unknown>): SessionNotification => ({
  sessionId: "s1",
  update,
  _meta: { hermes: { seq: ++seq, ...meta } },
});
const apply = (...updates: SessionNotification[]): Transcript => updates.reduce(applyUpdate, emptyTranscript());
const chunk = (text: string, messageId?: string): SessionUpdate => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text }, ...(messageId ? { messageId } : {}) });

describe("applyUpdate", () => {
  it("joins the chunks of one message and starts a new entry for the next message or a thought", () => {
    const t = apply(
      n(chunk("Hel", "m1")),
      n(chunk("lo", "m1")),
      n({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" }, messageId: "m2" }),
      n(chunk("Again", "m3")),
    );
    expect(t.entries.map((e) => [e.kind, "text" in e ? e.text : ""])).toEqual([
      ["agent", "Hello"],
      ["thought", "hmm"],
      ["agent", "Again"],
    ]);
  });

  it("ignores an update whose seq it has already applied (a replay after reconnecting)", () => {
    const first = n(chunk("once", "m1"));
    const t = [first, first, n(chunk(" more", "m1"))].reduce(applyUpdate, emptyTranscript());
    expect(t.entries).toEqual([{ kind: "agent", key: "agent:m1", messageId: "m1", text: "once more" }]);
    expect(t.lastSeq).toBe(seq);
  });

  it("lists a tool call once and merges its updates", () => {
    const t = apply(
      n({ sessionUpdate: "tool_call", toolCallId: "c1", title: "Write /w/a.txt", kind: "edit", status: "pending" }),
      n({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", content: [{ type: "diff", path: "/w/a.txt", oldText: null, newText: "x" }] }),
    );
    expect(t.entries).toEqual([{ kind: "tool", key: "c1" }]);
    expect(t.tools.c1).toMatchObject({ title: "Write /w/a.txt", kind: "edit", status: "completed", content: [{ type: "diff", path: "/w/a.txt" }] });
  });

  it("nests a sub-agent's relayed calls under the delegate call instead of listing them", () => {
    const t = apply(
      n({ sessionUpdate: "tool_call", toolCallId: "d1", title: "Delegate 2 tasks", kind: "execute", status: "in_progress" }),
      n({
        sessionUpdate: "tool_call_update",
        toolCallId: "d1",
        content: [{ type: "content", content: { type: "text", text: "▶ [1] a\n… [2] b" } }],
        _meta: { hermes: { subagents: [{ taskIndex: 0, subagentId: "sa", state: "running" }, { taskIndex: 1, subagentId: null, state: "queued" }] } },
      }),
      n({ sessionUpdate: "tool_call", toolCallId: "sa/c1", title: "Read /w/x", kind: "read", _meta: { hermes: { subagentId: "sa", parentToolCallId: "d1" } } }),
    );
    expect(t.entries).toEqual([{ kind: "tool", key: "d1" }]);
    expect(t.tools.d1?.subagents).toEqual([
      { taskIndex: 0, subagentId: "sa", state: "running" },
      { taskIndex: 1, subagentId: null, state: "queued" },
    ]);
    expect(childCalls(t, "d1", "sa").map((c) => c.title)).toEqual(["Read /w/x"]);
    expect(childCalls(t, "d1", "other")).toEqual([]);
  });

  it("keeps plan, usage, commands, config options and title, and follows the mode", () => {
    const mode = { id: "mode", name: "Mode", category: "mode", type: "select", currentValue: "default", options: [{ value: "default", name: "Default" }, { value: "read_only", name: "Read only" }] } satisfies SessionConfigOption;
    const t = apply(
      n({ sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] }),
      n({ sessionUpdate: "usage_update", used: 10, size: 100 }),
      n({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "help", description: "List" }] }),
      n({ sessionUpdate: "config_option_update", configOptions: [mode] }),
      n({ sessionUpdate: "current_mode_update", currentModeId: "read_only" }),
      n({ sessionUpdate: "session_info_update", title: "Named" }),
    );
    expect(t.plan).toHaveLength(1);
    expect(t.usage).toEqual({ used: 10, size: 100 });
    expect(t.commands.map((c) => c.name)).toEqual(["help"]);
    expect(t.configOptions[0]).toMatchObject({ id: "mode", currentValue: "read_only" });
    expect(t.title).toBe("Named");
  });

  it("says so when the context was compacted", () => {
    const t = apply(n({ sessionUpdate: "session_info_update", _meta: { hermes: { sessionProvenance: { reason: "compression", compressionDepth: 2 } } } }));
    expect(t.entries).toEqual([{ kind: "notice", key: "notice:0", tone: "info", text: "Context compacted: older turns were summarized (compaction 2)." }]);
  });
});

describe("local prompts", () => {
  it("keeps a queued prompt apart while the running turn streams, and moves it in when its turn starts", () => {
    let t = addLocalPrompt(emptyTranscript(), "p1", [{ type: "text", text: "first" }], "sent");
    t = addLocalPrompt(t, "p2", [{ type: "text", text: "second" }], "queued");
    t = applyUpdate(t, n(chunk("answer to first", "m1")));
    expect(t.entries.map((e) => e.kind)).toEqual(["user", "agent"]);
    expect(t.queued.map((q) => q.key)).toEqual(["p2"]);
    t = setPromptState(t, "p2", "sent");
    expect(t.queued).toEqual([]);
    expect(t.entries.map((e) => e.key)).toEqual(["p1", "agent:m1", "p2"]);
  });

  it("marks a prompt that failed, with the reason", () => {
    let t = addLocalPrompt(emptyTranscript(), "p1", [{ type: "text", text: "hi" }], "sent");
    t = setPromptState(t, "p1", "failed", "too big");
    expect(t.entries[0]).toMatchObject({ kind: "user", state: "failed", error: "too big" });
  });
});

describe("the prompt's author", () => {
  it("keeps _meta.hermes.author of a user_message_chunk on the prompt, and none for an admin key's prompt", () => {
    const user = (text: string, messageId: string, author?: string): SessionNotification => ({
      sessionId: "s",
      update: { sessionUpdate: "user_message_chunk", content: { type: "text", text }, messageId, ...(author ? { _meta: { hermes: { author: { user: author } } } } : {}) },
    });
    const t = [user("from ada", "u1", "ada"), user("from admin", "u2")].reduce(applyUpdate, emptyTranscript());
    expect(t.entries.map((e) => (e.kind === "user" ? e.author : "-"))).toEqual(["ada", undefined]);
  });
});
