// The mock model server, driven by the real `openai` client so that a shape the
// client cannot read (tool-call deltas, usage, errors) fails here first.
import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockOpenAI, type MockOpenAI } from "../../support/mock-openai.js";

let mock: MockOpenAI;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockOpenAI();
  // No retries: a 429 or 500 must surface as one error, not be retried away.
  client = new OpenAI({ apiKey: "test-key", baseURL: `${mock.url}/v1`, maxRetries: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const withKey = (key: string, text = "hi"): ChatCompletionMessageParam[] => [
  { role: "system", content: `You are a test. [[mock:${key}]]` },
  { role: "user", content: text },
];

async function streamChunks(messages: ChatCompletionMessageParam[], includeUsage = false): Promise<ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({
    model: "mock-model",
    messages,
    stream: true,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const contents = (chunks: ChatCompletionChunk[]) =>
  chunks.flatMap((c) => (typeof c.choices[0]?.delta.content === "string" ? [c.choices[0].delta.content] : []));
const finishReason = (chunks: ChatCompletionChunk[]) => chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason;
const field = (chunk: ChatCompletionChunk, name: string) => (chunk.choices[0]?.delta as Record<string, unknown> | undefined)?.[name];

describe("streaming", () => {
  it("Should stream scripted text in chunkSize pieces and finish with stop", async () => {
    mock.setScript("text", [{ text: "Hello, streaming world!", chunkSize: 5 }]);
    const chunks = await streamChunks(withKey("text"));
    expect(contents(chunks)).toEqual(["Hello", ", str", "eamin", "g wor", "ld!"]);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(finishReason(chunks)).toBe("stop");
  });

  it("Should stream explicit chunks and generated tokens one per chunk", async () => {
    mock.setScript("c", [{ chunks: ["ab", "", "cd"] }, { tokens: 4 }]);
    expect(contents(await streamChunks(withKey("c")))).toEqual(["ab", "", "cd"]);
    expect(contents(await streamChunks(withKey("c")))).toEqual(["t0", " t1", " t2", " t3"]);
  });

  it("Should stream reasoning_content before the content", async () => {
    mock.setScript("r", [{ reasoning: "Let me think it over", text: "Answer", chunkSize: 6 }]);
    const chunks = await streamChunks(withKey("r"));
    const reasoning = chunks.map((c) => field(c, "reasoning_content"));
    const firstContent = chunks.findIndex((c) => c.choices[0]?.delta.content);
    const lastReasoning = reasoning.findLastIndex((r) => r !== undefined);
    expect(reasoning.filter((r) => r !== undefined)).toEqual(["Let me", " think", " it ov", "er"]);
    expect(lastReasoning).toBeLessThan(firstContent);
    expect(contents(chunks).join("")).toBe("Answer");
  });

  it("Should use delta.reasoning when reasoningField is 'reasoning'", async () => {
    mock.setScript("r2", [{ reasoning: "hmm", reasoningField: "reasoning", text: "ok" }]);
    const chunks = await streamChunks(withKey("r2"));
    expect(chunks.map((c) => field(c, "reasoning")).join("")).toBe("hmm");
    expect(chunks.some((c) => field(c, "reasoning_content") !== undefined)).toBe(false);
  });

  it("Should stream tool calls that the client reassembles", async () => {
    const args = { path: "src/worker.ts", pattern: "health", limit: 20 };
    const step = { toolCalls: [{ id: "call_a", name: "grep", arguments: args }, { name: "read_file", arguments: '{"path":"a.ts"}' }] };
    mock.setScript("tools", [step, step]);
    const chunks = await streamChunks(withKey("tools"));
    // Arguments really are split: the client has to join several deltas.
    const argDeltas = chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.index === 0);
    expect(argDeltas.length).toBeGreaterThan(3);
    expect(argDeltas.slice(1).every((c) => c.choices[0]?.delta.tool_calls?.[0]?.id === undefined)).toBe(true);

    const final = await client.chat.completions
      .stream({ model: "mock-model", messages: withKey("tools") })
      .finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    const calls = final.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((c) => (c.type === "function" ? [c.id, c.function.name, c.function.arguments] : []))).toEqual([
      ["call_a", "grep", JSON.stringify(args)],
      ["call_mock_1", "read_file", '{"path":"a.ts"}'],
    ]);
  });

  it("Should send usage in a final chunk only when include_usage is set", async () => {
    mock.setScript("u", [{ text: "abc", usage: { prompt_tokens: 11, completion_tokens: 7 } }, { tokens: 5 }]);
    const withUsage = await streamChunks(withKey("u"), true);
    const last = withUsage.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    const estimated = await streamChunks(withKey("u"), true);
    expect(estimated.at(-1)?.usage?.completion_tokens).toBe(5);
    const without = await streamChunks(withKey("u"));
    expect(without.some((c) => c.usage)).toBe(false);
  });

  it("Should break the stream after dropAfterChunks", async () => {
    mock.setScript("drop", [{ text: "a long answer that will never finish", chunkSize: 4, dropAfterChunks: 2 }]);
    const received: ChatCompletionChunk[] = [];
    const consume = async () => {
      const stream = await client.chat.completions.create({ model: "m", messages: withKey("drop"), stream: true });
      for await (const chunk of stream) received.push(chunk);
    };
    await expect(consume()).rejects.toThrow();
    expect(received.length).toBeLessThanOrEqual(2);
    expect(finishReason(received)).toBeUndefined();
  });
});

describe("non-streaming and models", () => {
  it("Should return a full chat.completion with reasoning and tool calls", async () => {
    mock.setScript("full", [{ text: "Done.", reasoning: "why", toolCalls: [{ name: "ls", arguments: {} }], finishReason: "stop" }]);
    const completion = await client.chat.completions.create({ model: "mock-model", messages: withKey("full") });
    expect(completion.object).toBe("chat.completion");
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("stop");
    expect(choice?.message.content).toBe("Done.");
    expect((choice?.message as unknown as Record<string, unknown>).reasoning_content).toBe("why");
    expect(choice?.message.tool_calls?.[0]).toMatchObject({ type: "function", function: { name: "ls", arguments: "{}" } });
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("Should list models", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toContain("mock-model");
  });
});

describe("errors", () => {
  it("Should answer a scripted 429 with a rate limit error and retry-after-ms", async () => {
    mock.setScript("limit", [{ status: 429 }]);
    const error = await client.chat.completions.create({ model: "m", messages: withKey("limit") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("rate_limit_exceeded");
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after-ms")).toBe("1");
    expect(mock.calls("limit")).toHaveLength(1);
  });

  it("Should answer a scripted 500 on a streaming request with a server error", async () => {
    mock.setScript("boom", [{ status: 500, text: "kaboom" }]);
    const error = await streamChunks(withKey("boom")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect((error as Error).message).toContain("kaboom");
  });

  it("Should refuse requests without a bearer token", async () => {
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    expect((await fetch(`${mock.url}/v1/models`)).status).toBe(401);
    expect(mock.calls()).toHaveLength(0);
  });

  it("Should answer 400 when messages is missing", async () => {
    const error = await client.chat.completions.create({ model: "m" } as never).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });
});

describe("scripts and recording", () => {
  it("Should consume steps in order, then fall back to echoing the last user message", async () => {
    mock.setScript("seq", [{ text: "first" }, { text: "second" }]);
    const reply = async () => contents(await streamChunks(withKey("seq", "what now?"))).join("");
    expect([await reply(), await reply(), await reply()]).toEqual(["first", "second", "Echo: what now?"]);
    expect(mock.calls("seq")).toHaveLength(3);
  });

  it("Should echo when there is no marker and record the key as null", async () => {
    mock.setScript("seq", [{ text: "unused" }]);
    const chunks = await streamChunks([{ role: "user", content: "plain question" }]);
    expect(contents(chunks).join("")).toBe("Echo: plain question");
    expect(mock.calls()[0]?.key).toBeNull();
    expect(mock.calls("seq")).toHaveLength(0);
  });

  it("Should find the first marker in array content parts, searching from the first message", async () => {
    mock.setScript("first", [{ text: "from first" }]);
    mock.setScript("later", [{ text: "from later" }]);
    const messages: ChatCompletionMessageParam[] = [
      { role: "user", content: [{ type: "text", text: "context" }, { type: "text", text: "[[mock:first]]" }] },
      { role: "assistant", content: "ok" },
      { role: "user", content: "[[mock:later]] go" },
    ];
    expect(contents(await streamChunks(messages)).join("")).toBe("from first");
  });

  it("Should record the body, auth header and timings of each call", async () => {
    mock.setScript("t", [{ text: "abcdef", chunkSize: 2, firstTokenDelayMs: 40, chunkDelayMs: 15 }]);
    const before = Date.now();
    await streamChunks(withKey("t"));
    const [call] = mock.calls("t");
    expect(call?.body.messages).toHaveLength(2);
    expect(call?.body.stream).toBe(true);
    expect(call?.headers.authorization).toBe("Bearer test-key");
    expect(call!.atEpochMs).toBeGreaterThanOrEqual(before);
    expect(call!.firstTokenAt! - call!.at).toBeGreaterThanOrEqual(35);
    expect(call!.endAt! - call!.firstTokenAt!).toBeGreaterThanOrEqual(25);
  });

  it("Should pace a stream with a fractional chunkIntervalMs and record when each event was written", async () => {
    mock.setScript("paced", [{ tokens: 400, chunkIntervalMs: 0.1, recordChunkTimes: true }]);
    expect(contents(await streamChunks(withKey("paced")))).toHaveLength(400);
    const [call] = mock.calls("paced");
    const written = call!.chunkWrittenAt!;
    expect(written).toHaveLength(401); // 400 tokens and the finish event
    expect(written[0]).toBe(call!.firstTokenAt);
    for (let i = 1; i < written.length; i++) {
      expect(written[i]!).toBeGreaterThanOrEqual(written[i - 1]!);
      // Never ahead of schedule: event i is written no earlier than i × 0.1 ms after the first.
      expect(written[i]! - written[0]!).toBeGreaterThanOrEqual(i * 0.1 - 1e-6);
    }
    // Paced, not one timer tick per token: the events that are due go out together, so most follow the one before
    // within a millisecond, where a tick per token would put a millisecond or more between any two. Counted, not
    // timed: a loaded machine stretches the whole stream (it once took 315 ms) but still writes it in bursts.
    const apart = written.slice(1).filter((at, i) => at - written[i]! >= 1).length;
    expect(apart).toBeLessThan(200);
  });
});

describe("HTTP control API", () => {
  const post = (path: string, body?: unknown) =>
    fetch(`${mock.url}${path}`, { method: "POST", body: body === undefined ? undefined : JSON.stringify(body) });

  it("Should set scripts, list calls by key and reset over HTTP", async () => {
    expect((await post("/_mock/scripts", { key: "http", steps: [{ text: "via http" }] })).status).toBe(204);
    expect(contents(await streamChunks(withKey("http"))).join("")).toBe("via http");
    await streamChunks([{ role: "user", content: "unmarked" }]);

    const byKey = (await (await fetch(`${mock.url}/_mock/calls?key=http`)).json()) as Array<{ key: string; body: { messages: unknown[] } }>;
    expect(byKey).toHaveLength(1);
    expect(byKey[0]?.key).toBe("http");
    expect(byKey[0]?.body.messages).toHaveLength(2);
    const all = (await (await fetch(`${mock.url}/_mock/calls`)).json()) as unknown[];
    expect(all).toHaveLength(2);

    expect((await post("/_mock/reset")).status).toBe(204);
    expect(await (await fetch(`${mock.url}/_mock/calls`)).json()).toEqual([]);
    expect(contents(await streamChunks(withKey("http"))).join("")).toBe("Echo: hi");
  });

  it("Should reject a malformed script", async () => {
    expect((await post("/_mock/scripts", { key: "x" })).status).toBe(400);
    expect((await post("/_mock/scripts", { steps: [] })).status).toBe(400);
  });
});

describe("deferBodyParsing", () => {
  let deferred: MockOpenAI;
  beforeAll(async () => {
    deferred = await startMockOpenAI({ deferBodyParsing: true });
  });
  afterAll(() => deferred.close());

  const postChat = (body: string) =>
    fetch(`${deferred.url}/v1/chat/completions`, { method: "POST", headers: { authorization: "Bearer k" }, body });
  const events = async (res: Response) =>
    (await res.text())
      .split("\n\n")
      .filter((e) => e.startsWith("data: {"))
      .map((e) => JSON.parse(e.slice("data: ".length)) as ChatCompletionChunk);

  it("Should answer from the raw text, and parse the body when it is first read", async () => {
    deferred.setScript("d", [{ tokens: 2, usage: { prompt_tokens: 7, completion_tokens: 2 } }]);
    const client = new OpenAI({ apiKey: "k", baseURL: `${deferred.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "mock-model-large",
      messages: [{ role: "user", content: 'a "quoted" [[mock:d]] prompt' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(contents(chunks)).toEqual(["t0", " t1"]);
    expect(chunks.every((c) => c.model === "mock-model-large")).toBe(true);
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
    const [call] = deferred.calls("d");
    expect(call?.body.messages).toEqual([{ role: "user", content: 'a "quoted" [[mock:d]] prompt' }]);
  });

  it("Should answer a body that is not JSON, and fail only when the body is read", async () => {
    deferred.setScript("broken", [{ tokens: 1 }]);
    const res = await postChat('{"model":"m","messages":[{"role":"user","content":"[[mock:broken]]"}],"stream":true,');
    expect(res.status).toBe(200);
    expect(contents(await events(res))).toEqual(["t0"]);
    const [call] = deferred.calls("broken");
    expect(() => call?.body).toThrow(SyntaxError);
  });

  it("Should take the first whole marker, past one that is not", async () => {
    deferred.setScript("good", [{ text: "from good" }]);
    const res = await postChat(JSON.stringify({ stream: false, messages: [{ role: "user", content: "[[mock: bad]] [[mock:good]]" }] }));
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe("from good");
  });

  it("Should find `stream` as a key, not inside a string", async () => {
    deferred.setScript("plain", [{ text: "whole" }]);
    const res = await postChat(JSON.stringify({ messages: [{ role: "user", content: '[[mock:plain]] "stream":true' }] }));
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe("whole");
  });
});
