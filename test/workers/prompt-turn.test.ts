import { describe, expect, it } from "vitest";
import { mockCalls, mockScript, sleep, TestClient, uniqueKey, type Frame, turnOf } from "./acp-test-client.js";

const kinds = (frames: Frame[]) => frames.map((f) => f.params.update.sessionUpdate as string);

async function session(): Promise<{ client: TestClient; sessionId: string }> {
  const client = await TestClient.ready();
  const sessionId = await client.newSession(`/work/${crypto.randomUUID()}`);
  return { client, sessionId };
}

describe("streaming a turn", () => {
  it("streams agent_message_chunk deltas in order under one messageId", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ chunks: ["Hel", "lo, ", "wor", "ld"] }]);
    const { client, sessionId } = await session();
    const { id, response } = client.prompt(sessionId, `greet [[mock:${key}]]`);
    expect((await response).result).toEqual({ stopReason: "end_turn" });
    const chunks = client.updates(sessionId).filter((f) => f.params.update.sessionUpdate === "agent_message_chunk");
    expect(chunks.map((f) => f.params.update.content)).toEqual([
      { type: "text", text: "Hel" },
      { type: "text", text: "lo, " },
      { type: "text", text: "wor" },
      { type: "text", text: "ld" },
    ]);
    const messageId = chunks[0]!.params.update.messageId;
    expect(typeof messageId).toBe("string");
    expect(messageId.length).toBeGreaterThan(0);
    expect(chunks.every((f) => f.params.update.messageId === messageId)).toBe(true);
    // The response comes after every update of its turn.
    const responseIndex = client.frames.findIndex((f) => f.id === id && !f.method);
    expect(client.frames.indexOf(chunks[3]!)).toBeLessThan(responseIndex);
    client.close();
  });

  it("streams a delta larger than a body read, with multi-byte characters, intact", async () => {
    // 60,000 bytes of UTF-8 in one event: the body's reads cut it, and some of its characters, into pieces.
    const long = "é€".repeat(12_000);
    const key = uniqueKey();
    await mockScript(key, [{ chunks: ["a", long, "z"] }]);
    const { client, sessionId } = await session();
    expect((await client.prompt(sessionId, `long [[mock:${key}]]`).response).result).toEqual({ stopReason: "end_turn" });
    expect(client.agentText(sessionId)).toBe(`a${long}z`);
    client.close();
  });

  it("uses a new messageId for the next turn", async () => {
    const { client, sessionId } = await session();
    await client.prompt(sessionId, "one").response;
    await client.prompt(sessionId, "two").response;
    const ids = new Set(
      client
        .updates(sessionId)
        .filter((f) => f.params.update.sessionUpdate === "agent_message_chunk")
        .map((f) => f.params.update.messageId),
    );
    expect(ids.size).toBe(2);
    expect(client.agentText(sessionId)).toBe("Echo: oneEcho: two");
    client.close();
  });

  for (const field of ["reasoning_content", "reasoning"] as const) {
    it(`streams agent_thought_chunk from delta.${field} before the answer`, async () => {
      const key = uniqueKey();
      await mockScript(key, [{ reasoning: "Let me think about it.", reasoningField: field, text: "Answer.", chunkSize: 6 }]);
      const { client, sessionId } = await session();
      expect((await client.prompt(sessionId, `why? [[mock:${key}]]`).response).result).toEqual({ stopReason: "end_turn" });
      const updates = client.updates(sessionId).map((f) => f.params.update);
      const thoughts = updates.filter((u) => u.sessionUpdate === "agent_thought_chunk");
      expect(thoughts.map((u) => u.content.text).join("")).toBe("Let me think about it.");
      expect(thoughts.length).toBe(4);
      expect(new Set(thoughts.map((u) => u.messageId)).size).toBe(1);
      expect(client.agentText(sessionId)).toBe("Answer.");
      const lastThought = updates.lastIndexOf(thoughts[thoughts.length - 1]);
      const firstAnswer = updates.findIndex((u) => u.sessionUpdate === "agent_message_chunk");
      expect(lastThought).toBeLessThan(firstAnswer);
      client.close();
    });
  }

  it("sends one usage_update at the end of the turn", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "counted", usage: { prompt_tokens: 1200, completion_tokens: 34 } }]);
    const { client, sessionId } = await session();
    await client.prompt(sessionId, `count [[mock:${key}]]`).response;
    const logged = client.logged(sessionId);
    const usage = logged.filter((f) => f.params.update?.sessionUpdate === "usage_update");
    expect(usage.map((f) => f.params.update)).toEqual([{ sessionUpdate: "usage_update", used: 1234, size: 128000 }]);
    // After the last chunk, right before the turn ends.
    const at = logged.indexOf(usage[0]!);
    expect(logged[at + 1]!.method).toBe("_hermes/turn_ended");
    expect(kinds(logged.slice(0, at)).at(-1)).toBe("agent_message_chunk");
    client.close();
  });

  it("asks the model for usage in the stream", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "x" }]);
    const { client, sessionId } = await session();
    await client.prompt(sessionId, `[[mock:${key}]]`).response;
    const [call] = await mockCalls(key);
    expect(call.body.stream).toBe(true);
    expect(call.body.stream_options).toEqual({ include_usage: true });
    expect(call.body.model).toBe("gpt-4o-mini");
    expect(call.headers.authorization).toBe("Bearer test-key");
    client.close();
  });
});

describe("session title", () => {
  it("takes the title from the first prompt, once, and indexes it", async () => {
    const { client, sessionId } = await session();
    await client.prompt(sessionId, "Refactor the payment\n  module please").response;
    await client.prompt(sessionId, "And add tests").response;
    const infos = client.updates(sessionId).filter((f) => f.params.update.sessionUpdate === "session_info_update");
    expect(infos).toHaveLength(1);
    expect(infos[0]!.params.update).toEqual({
      sessionUpdate: "session_info_update",
      title: "Refactor the payment module please",
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const listed = await client.call("session/list", {});
    expect(listed.sessions.find((s: Frame) => s.sessionId === sessionId).title).toBe("Refactor the payment module please");
    client.close();
  });

  it("shortens a long first prompt to 80 characters", async () => {
    const { client, sessionId } = await session();
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    await client.prompt(sessionId, words).response;
    const info = client.updates(sessionId).find((f) => f.params.update.sessionUpdate === "session_info_update")!;
    const title = info.params.update.title as string;
    expect(title).toHaveLength(80);
    expect(title.endsWith("…")).toBe(true);
    expect(words.startsWith(title.slice(0, -1).trimEnd())).toBe(true);
    client.close();
  });

  it("calls a session whose first prompt has no text \"Untitled session\"", async () => {
    const { client, sessionId } = await session();
    await client.prompt(sessionId, [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }]).response;
    const info = client.updates(sessionId).find((f) => f.params.update.sessionUpdate === "session_info_update")!;
    expect(info.params.update.title).toBe("Untitled session");
    client.close();
  });
});

describe("stop reasons", () => {
  const cases = [
    { finishReason: "stop", stopReason: "end_turn" },
    { finishReason: "length", stopReason: "max_tokens" },
    { finishReason: "content_filter", stopReason: "refusal" },
  ] as const;
  for (const { finishReason, stopReason } of cases) {
    it(`answers ${stopReason} when the model finishes with ${finishReason}`, async () => {
      const key = uniqueKey();
      await mockScript(key, [{ text: "partial answer", finishReason }]);
      const { client, sessionId } = await session();
      const { id, response } = client.prompt(sessionId, `[[mock:${key}]] go`);
      expect((await response).result).toEqual({ stopReason });
      const ended = client.turnsEnded(sessionId);
      expect(ended).toHaveLength(1);
      expect(ended[0]!.params).toMatchObject({ sessionId, stopReason, _meta: { hermes: { requestId: id, connectionId: client.connectionId } } });
      expect(ended[0]!.params.error).toBeUndefined();
      expect(client.agentText(sessionId)).toBe("partial answer");
      client.close();
    });
  }
});

describe("prompt content", () => {
  it("sends text, images, resource links and embedded resources to the model", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "seen" }]);
    const { client, sessionId } = await session();
    const prompt = [
      { type: "text", text: `[[mock:${key}]] Describe these` },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "image", data: "", mimeType: "image/jpeg", uri: "https://example.com/cat.jpg" },
      { type: "resource_link", uri: "file:///work/p/src/a.ts", name: "a.ts", description: "the entry point" },
      { type: "resource_link", uri: "file:///work/p/b.ts", name: "b.ts", title: "B module" },
      { type: "resource", resource: { uri: "file:///work/p/README.md", text: "# Readme\nhello", mimeType: "text/markdown" } },
      { type: "resource", resource: { uri: "file:///work/p/logo.png", blob: "AAAA", mimeType: "image/png" } },
    ];
    const res = await client.prompt(sessionId, prompt).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(1);
    const messages = calls[0].body.messages;
    expect(messages.map((m: Frame) => m.role)).toEqual(["system", "user"]);
    expect(messages[1].content).toEqual([
      { type: "text", text: `[[mock:${key}]] Describe these` },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
      { type: "text", text: "[Referenced resource: a.ts <file:///work/p/src/a.ts> — the entry point]" },
      { type: "text", text: "[Referenced resource: B module <file:///work/p/b.ts>]" },
      { type: "text", text: '<resource uri="file:///work/p/README.md">\n# Readme\nhello\n</resource>' },
      { type: "text", text: "[binary resource file:///work/p/logo.png (image/png) omitted]" },
    ]);
    client.close();
  });

  it("replays every prompt block as user_message_chunk on load", async () => {
    const { client, sessionId } = await session();
    const prompt = [
      { type: "text", text: "look" },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "resource_link", uri: "file:///work/p/a.ts", name: "a.ts" },
    ];
    await client.prompt(sessionId, prompt).response;
    const other = await TestClient.ready();
    await other.call("session/load", { sessionId, cwd: "/work/p", mcpServers: [] });
    const user = other.updates(sessionId).filter((f) => f.params.update.sessionUpdate === "user_message_chunk");
    expect(user.map((f) => f.params.update.content)).toEqual(prompt);
    expect(new Set(user.map((f) => f.params.update.messageId)).size).toBe(1);
    client.close();
    other.close();
  });

  it("sends the earlier turns of the session to the model", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "one" }, { text: "two" }]);
    const { client, sessionId } = await session();
    await client.prompt(sessionId, `first [[mock:${key}]]`).response;
    await client.prompt(sessionId, "second").response;
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(2);
    expect(calls[1].body.messages.slice(1)).toEqual([
      { role: "user", content: [{ type: "text", text: `first [[mock:${key}]]` }] },
      { role: "assistant", content: "one" },
      { role: "user", content: [{ type: "text", text: "second" }] },
    ]);
    expect(client.agentText(sessionId)).toBe("onetwo");
    client.close();
  });

  it("returns -32602 for an empty prompt and for an unknown content type", async () => {
    const { client, sessionId } = await session();
    const empty = await client.request("session/prompt", { sessionId, prompt: [] });
    expect(empty.error.code).toBe(-32602);
    const odd = await client.request("session/prompt", { sessionId, prompt: [{ type: "video", data: "x" }] });
    expect(odd.error.code).toBe(-32602);
    expect((await client.prompt(sessionId, "fine").response).result).toEqual({ stopReason: "end_turn" });
    client.close();
  });
});

describe("queued prompts", () => {
  it("runs prompts sent during a turn in order and answers each when its own turn ends", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 20, chunkDelayMs: 25 }, { text: "second answer" }, { text: "third answer" }]);
    const { client, sessionId } = await session();
    const p1 = client.prompt(sessionId, `first [[mock:${key}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    const p2 = client.prompt(sessionId, "second");
    const p3 = client.prompt(sessionId, "third");
    const [r1, r2, r3] = await Promise.all([p1.response, p2.response, p3.response]);
    expect([r1.result, r2.result, r3.result]).toEqual([{ stopReason: "end_turn" }, { stopReason: "end_turn" }, { stopReason: "end_turn" }]);

    const ended = client.turnsEnded(sessionId);
    expect(ended.map((f) => f.params._meta.hermes.requestId)).toEqual([p1.id, p2.id, p3.id]);
    const at = (pred: (f: Frame) => boolean) => client.frames.findIndex(pred);
    const resp = (id: number) => at((f) => f.id === id && !f.method);
    const firstChunkOf = (text: string) => at((f) => f.params?.update?.content?.text?.startsWith(text));
    // Each answer follows its own turn_ended and precedes the next turn's output.
    expect(client.frames.indexOf(ended[0]!)).toBeLessThan(resp(p1.id));
    expect(resp(p1.id)).toBeLessThan(firstChunkOf("second"));
    expect(client.frames.indexOf(ended[1]!)).toBeLessThan(resp(p2.id));
    expect(resp(p2.id)).toBeLessThan(firstChunkOf("third"));
    expect(client.frames.indexOf(ended[2]!)).toBeLessThan(resp(p3.id));
    expect(client.agentText(sessionId)).toBe(
      `${Array.from({ length: 20 }, (_, i) => (i === 0 ? "t0" : ` t${i}`)).join("")}second answerthird answer`,
    );
    // The second model call saw the first turn; the third saw both.
    const calls = await mockCalls(key);
    expect(calls.map((c: Frame) => c.body.messages.filter((m: Frame) => m.role === "user").length)).toEqual([1, 2, 3]);
    client.close();
  });
});

describe("cancellation", () => {
  it("session/cancel ends the running turn cancelled and answers queued prompts cancelled", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 500, chunkDelayMs: 20 }]);
    const { client, sessionId } = await session();
    const running = client.prompt(sessionId, `long [[mock:${key}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    const queued1 = client.prompt(sessionId, "queued one");
    const queued2 = client.prompt(sessionId, "queued two");
    // Let the queued prompts reach the session before cancelling.
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    client.notify("session/cancel", { sessionId });
    const [r, q1, q2] = await Promise.all([running.response, queued1.response, queued2.response]);
    expect(r.result).toEqual({ stopReason: "cancelled" });
    expect(q1.result).toEqual({ stopReason: "cancelled" });
    expect(q2.result).toEqual({ stopReason: "cancelled" });
    expect(client.agentText(sessionId).split(" ").length).toBeLessThan(500);
    // The queued prompts never reached the model.
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(1);
    expect(client.turnsEnded(sessionId).map((f) => f.params.stopReason)).toEqual(["cancelled", "cancelled", "cancelled"]);

    // The session is still usable.
    const after = await client.prompt(sessionId, "are you there?").response;
    expect(after.result).toEqual({ stopReason: "end_turn" });
    expect(client.agentText(sessionId).endsWith("Echo: are you there?")).toBe(true);
    const resumed = await client.call("session/resume", { sessionId, cwd: "/work/p" });
    expect(turnOf(resumed)).toEqual({ state: "idle", lastStopReason: "end_turn" });
    client.close();
  });

  it("runs a prompt sent right after session/cancel instead of cancelling it", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 500, chunkDelayMs: 20 }]);
    const { client, sessionId } = await session();
    const running = client.prompt(sessionId, `long [[mock:${key}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    client.notify("session/cancel", { sessionId });
    const next = client.prompt(sessionId, "right after");
    expect((await running.response).result).toEqual({ stopReason: "cancelled" });
    expect((await next.response).result).toEqual({ stopReason: "end_turn" });
    expect(client.agentText(sessionId).endsWith("Echo: right after")).toBe(true);
    client.close();
  });

  it("ignores session/cancel when no turn runs", async () => {
    const { client, sessionId } = await session();
    await client.prompt(sessionId, "first").response;
    client.notify("session/cancel", { sessionId });
    const res = await client.prompt(sessionId, "second").response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    expect(client.turnsEnded(sessionId).map((f) => f.params.stopReason)).toEqual(["end_turn", "end_turn"]);
    client.close();
  });

  it("cancels a turn that is waiting to retry the model", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ status: 503 }, { status: 503 }, { status: 503 }]);
    const { client, sessionId } = await session();
    const running = client.prompt(sessionId, `[[mock:${key}]] retry me`);
    for (let i = 0; i < 100 && (await mockCalls(key)).length === 0; i++) await sleep(10);
    client.notify("session/cancel", { sessionId });
    const res = await running.response;
    expect(res.result).toEqual({ stopReason: "cancelled" });
    expect((await mockCalls(key)).length).toBeLessThan(3);
    expect(client.agentText(sessionId)).toBe("");
    client.close();
  });

  it("$/cancel_request cancels a queued prompt and leaves the running one alone", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 40, chunkDelayMs: 25 }]);
    const { client, sessionId } = await session();
    const running = client.prompt(sessionId, `first [[mock:${key}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    const queued = client.prompt(sessionId, "never runs");
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    client.notify("$/cancel_request", { requestId: queued.id });
    expect((await queued.response).result).toEqual({ stopReason: "cancelled" });
    expect((await running.response).result).toEqual({ stopReason: "end_turn" });
    expect(client.agentText(sessionId)).toBe(Array.from({ length: 40 }, (_, i) => (i === 0 ? "t0" : ` t${i}`)).join(""));
    expect(await mockCalls(key)).toHaveLength(1);
    client.close();
  });

  it("$/cancel_request for the running prompt ends it cancelled", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ tokens: 500, chunkDelayMs: 20 }]);
    const { client, sessionId } = await session();
    const running = client.prompt(sessionId, `long [[mock:${key}]]`);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    client.notify("$/cancel_request", { requestId: running.id });
    expect((await running.response).result).toEqual({ stopReason: "cancelled" });
    client.close();
  });
});

describe("model failures", () => {
  it("retries a 429 and answers once with the successful turn", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ status: 429 }, { text: "worked on retry" }]);
    const { client, sessionId } = await session();
    const { id, response } = client.prompt(sessionId, `[[mock:${key}]] try`);
    expect((await response).result).toEqual({ stopReason: "end_turn" });
    expect(client.agentText(sessionId)).toBe("worked on retry");
    expect(await mockCalls(key)).toHaveLength(2);
    expect(client.frames.filter((f) => f.id === id && !f.method)).toHaveLength(1);
    expect(client.turnsEnded(sessionId)).toHaveLength(1);
    client.close();
  });

  it("after three 500s answers the prompt with a JSON-RPC error, says why in the conversation and stays usable", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ status: 500 }, { status: 500 }, { status: 500 }]);
    const { client, sessionId } = await session();
    const res = await client.prompt(sessionId, `[[mock:${key}]] try`).response;
    expect(await mockCalls(key)).toHaveLength(3);
    expect(res.error.code).toBe(-32603);
    expect(res.error.message).toMatch(/^The model request failed after 3 tries: model API answered 500/);
    const text = client.agentText(sessionId);
    expect(text).toBe(`\n\n⚠️ ${res.error.message}`);
    expect(text).toContain("send your prompt again");
    const [ended] = client.turnsEnded(sessionId);
    // As the turn is stored: no stop reason, only the error its prompt was answered with.
    expect(ended!.params.stopReason).toBeNull();
    expect(ended!.params.error).toEqual({ code: -32603, message: res.error.message });
    // Stored as failed, with its error: never as end_turn.
    const loaded = await client.call("session/resume", { sessionId, cwd: "/work/project" });
    expect((loaded as any)._meta.hermes.turn).toMatchObject({ state: "idle", lastError: { code: -32603, message: res.error.message } });
    expect((loaded as any)._meta.hermes.turn.lastStopReason).toBeUndefined();

    const again = await client.prompt(sessionId, "once more").response;
    expect(again.result).toEqual({ stopReason: "end_turn" });
    expect(client.agentText(sessionId)).toBe(`${text}Echo: once more`);
    client.close();
  });

  it("retries a stream that breaks before any output", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "lost", dropAfterChunks: 0 }, { text: "recovered" }]);
    const { client, sessionId } = await session();
    const res = await client.prompt(sessionId, `[[mock:${key}]] go`).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    expect(client.agentText(sessionId)).toBe("recovered");
    expect(await mockCalls(key)).toHaveLength(2);
    client.close();
  });

  it("reports a stream that breaks after output instead of retrying it", async () => {
    const key = uniqueKey();
    // "part" and "ial " arrive 100 ms apart; the socket breaks right after "text " is written.
    await mockScript(key, [{ text: "partial text here", chunkSize: 4, chunkDelayMs: 100, dropAfterChunks: 3 }, { text: "must not run" }]);
    const { client, sessionId } = await session();
    const res = await client.prompt(sessionId, `[[mock:${key}]] go`).response;
    expect(await mockCalls(key)).toHaveLength(1);
    expect(res.error.code).toBe(-32603);
    expect(res.error.message).toMatch(/^The model request failed: model API unreachable/);
    const text = client.agentText(sessionId);
    expect(text).toMatch(/^partial (text)?\n\n⚠️ /);
    expect(text.endsWith(`\n\n⚠️ ${res.error.message}`)).toBe(true);
    expect((await client.prompt(sessionId, "hello again").response).result).toEqual({ stopReason: "end_turn" });
    client.close();
  });

  it("answers a prompt sent with a string id under that id", async () => {
    const { client, sessionId } = await session();
    const reply = client.next((f) => f.id === "prompt-α" && !f.method);
    client.send({ jsonrpc: "2.0", id: "prompt-α", method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "hi" }] } });
    expect((await reply).result).toEqual({ stopReason: "end_turn" });
    expect(client.turnsEnded(sessionId)[0]!.params._meta.hermes.requestId).toBe("prompt-α");
    client.close();
  });

  it("does not retry a 400", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ status: 400, text: "bad request body" }, { text: "should not be used" }]);
    const { client, sessionId } = await session();
    const res = await client.prompt(sessionId, `[[mock:${key}]] try`).response;
    expect(await mockCalls(key)).toHaveLength(1);
    expect(res.error.code).toBe(-32603);
    expect(res.error.message).toContain("model API answered 400");
    client.close();
  });
});
