import { describe, expect, it } from "vitest";
import { chatRequestBody } from "../../../src/agent/chat-request-body.js";
import { messageChars, messageJson, rememberJson } from "../../../src/agent/message-json.js";
import type { ChatMessage, ToolSpec } from "../../../src/agent/model-provider.js";

const messages: ChatMessage[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: [{ type: "text", text: "look at \"this\" — ünïcode ✓ and a \u2028 separator" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"/w/a.ts"}' } }] },
  { role: "tool", tool_call_id: "c1", content: "export const a = 1;\n" },
  { role: "assistant", content: "a is 1" },
];
const tools: ToolSpec[] = [{ type: "function", function: { name: "read_file", description: "Reads a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];

const text = (body: Uint8Array) => new TextDecoder().decode(body);

/** What the openai client sent before: the request object, stringified whole. */
function stringified(request: { model: string; messages: ChatMessage[]; tools: ToolSpec[]; reasoningEffort?: "low" | "medium" | "high" }): string {
  return JSON.stringify({
    model: request.model,
    messages: request.messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length > 0 ? { tools: request.tools } : {}),
    ...(request.reasoningEffort ? { reasoning_effort: request.reasoningEffort } : {}),
  });
}

describe("chatRequestBody", () => {
  it("is byte for byte the JSON of the whole request, with and without tools and reasoning effort", () => {
    for (const request of [
      { model: "gpt-x", messages, tools },
      { model: "gpt-x", messages, tools: [] },
      { model: "m\"odel", messages: [], tools, reasoningEffort: "high" as const },
    ]) {
      expect(text(chatRequestBody(request))).toBe(stringified(request));
      expect(chatRequestBody(request)).toEqual(new TextEncoder().encode(stringified(request)));
    }
  });

  it("uses the JSON a message remembered instead of stringifying it again", () => {
    const message: ChatMessage = { role: "user", content: "first" };
    const body = text(chatRequestBody({ model: "m", messages: [message], tools: [] }));
    // Stored messages never change; changing one here shows the body comes from the remembered JSON.
    (message as { content: string }).content = "changed";
    expect(text(chatRequestBody({ model: "m", messages: [message], tools: [] }))).toBe(body);
  });

  it("starts a session's next request with the bytes of its last one, and is still the request's JSON", () => {
    const history: ChatMessage[] = [{ role: "user", content: "one" }];
    const request = (system: string) => ({ model: "m", messages: [{ role: "system" as const, content: system }, ...history], tools });
    expect(text(chatRequestBody(request("s1")))).toBe(stringified(request("s1")));
    history.push({ role: "assistant", content: "ünïcode ✓" }, { role: "user", content: "two" });
    expect(text(chatRequestBody(request("a new system prompt")))).toBe(stringified(request("a new system prompt")));
    history.push({ role: "assistant", content: "three" });
    const expected = stringified(request("s2"));
    // A stored message never changes: changing one here shows its JSON came from the last request's bytes.
    (history[0] as { content: string }).content = "changed";
    expect(text(chatRequestBody(request("s2")))).toBe(expected);
  });

  it("starts afresh when the messages are not the last request's followed by more", () => {
    const a: ChatMessage = { role: "user", content: "a" };
    const b: ChatMessage = { role: "assistant", content: "b" };
    const c: ChatMessage = { role: "user", content: "c" };
    const system: ChatMessage = { role: "system", content: "s" };
    for (const messages of [[system, a, b, c], [system, a, c], [system, a], [system, a, b, c], [system, a, c, b], [system, a, b, c]]) {
      const request = { model: "m", messages, tools: [] };
      expect(text(chatRequestBody(request))).toBe(stringified(request));
    }
  });

  it("is the request's JSON when a system prompt outgrows the room kept for it and the history its buffer", () => {
    const history: ChatMessage[] = [{ role: "user", content: "start" }];
    for (let turn = 0; turn < 60; turn++) {
      const system = turn % 20 === 19 ? "long ".repeat(20_000) : `short ${turn}`;
      const request = { model: "m", messages: [{ role: "system" as const, content: system }, ...history], tools, reasoningEffort: "low" as const };
      expect(text(chatRequestBody(request))).toBe(stringified(request));
      history.push({ role: "assistant", content: `answer ${turn} ${"ü".repeat(turn * 50)}` }, { role: "user", content: `next ${turn}` });
    }
  });

  it("takes a stored row's JSON as the message's own", () => {
    const message: ChatMessage = { role: "user", content: "hi" };
    rememberJson(message, '{"role":"user","content":"hi"}');
    expect(messageJson(message)).toBe('{"role":"user","content":"hi"}');
  });

  it("measures a message's characters once: content and tool calls as JSON", () => {
    const call = messages[2]!;
    expect(messageChars(call)).toBe(JSON.stringify("").length + JSON.stringify((call as { tool_calls: unknown }).tool_calls).length);
    expect(messageChars({ role: "user", content: "x".repeat(398) })).toBe(400);
  });
});
