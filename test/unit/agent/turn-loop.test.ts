// The turn loop with the real OpenAIProvider against the mock model server and
// tools defined here: what the editor sees (`emit`), what history keeps
// (`record`) and what the model receives (`mock.calls`).
import type { SessionUpdate, ToolCallContent, ToolKind } from "@agentclientprotocol/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChatMessage, ModelProvider, ModelRequest } from "../../../src/agent/model-provider.js";
import { OpenAIProvider } from "../../../src/agent/openai-provider.js";
import type { RetryPolicy } from "../../../src/agent/retry.js";
import { DEFAULT_MAX_MODEL_CALLS, runTurn, type TurnDeps, type TurnInput } from "../../../src/agent/turn-loop.js";
import { ToolError, type AnyTool, type Tool, type ToolContext } from "../../../src/tools/tool.js";
import { startMockOpenAI, type MockOpenAI, type MockStep } from "../../support/mock-openai.js";
import { NO_D1 } from "../tools/fakes.js";

let mock: MockOpenAI;
let provider: OpenAIProvider;

beforeAll(async () => {
  mock = await startMockOpenAI();
  provider = new OpenAIProvider({ baseURL: `${mock.url}/v1`, apiKey: "test-key" });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const FAST_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };

type Progress = Parameters<NonNullable<TurnDeps["onProgress"]>>[0];

interface Harness {
  deps: TurnDeps;
  updates: SessionUpdate[];
  recorded: ChatMessage[];
  progress: Progress[];
  contexts: Array<{ toolCallId: string; signal: AbortSignal }>;
}

function harness(overrides: Partial<TurnDeps> = {}): Harness {
  const h: Harness = { deps: undefined as unknown as TurnDeps, updates: [], recorded: [], progress: [], contexts: [] };
  let n = 0;
  h.deps = {
    provider,
    emit: (update) => void h.updates.push(update),
    record: (message) => void h.recorded.push(message),
    toolContext: (toolCallId, signal): ToolContext => {
      h.contexts.push({ toolCallId, signal });
      return {
        sessionId: "sess-1",
        tenant: "alpha",
        db: NO_D1,
        cwd: "/work",
        additionalDirectories: [],
        toolCallId,
        signal,
        client: {
          capabilities: {},
          request: () => Promise.reject(new Error("no editor in unit tests")),
        },
        emit: (update) => void h.updates.push(update),
      };
    },
    newId: () => `id-${++n}`,
    coalesceMs: 0,
    retry: FAST_RETRY,
    onProgress: (event) => void h.progress.push(event),
    ...overrides,
  };
  return h;
}

const SYSTEM = (key: string): ChatMessage => ({ role: "system", content: `You are a test agent. [[mock:${key}]]` });
const USER: ChatMessage = { role: "user", content: "What is 2 + 3?" };

function turnInput(key: string, tools: AnyTool[] = [], extra: Partial<TurnInput> = {}): TurnInput {
  return { model: "mock-model", messages: [SYSTEM(key), USER], tools, ...extra };
}

function script(key: string, steps: MockStep[]): string {
  mock.setScript(key, steps);
  return key;
}

/** The `add` tool, logging each run's input and the order runs start and end in. */
function addTool(log: string[] = [], delays: Record<string, number> = {}, kind: ToolKind = "think"): Tool<{ a: number; b: number }> {
  return {
    name: "add",
    description: "Adds two numbers.",
    kind,
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    title: ({ a, b }) => `add ${a} + ${b}`,
    async run(input, ctx) {
      log.push(`start ${ctx.toolCallId} ${JSON.stringify(input)}`);
      await new Promise((r) => setTimeout(r, delays[ctx.toolCallId] ?? 0));
      log.push(`end ${ctx.toolCallId}`);
      return { output: String(input.a + input.b) };
    },
  };
}

const text = (t: string): ToolCallContent[] => [{ type: "content", content: { type: "text", text: t } }];
const chunk = (t: string, messageId: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text: t },
  messageId,
});
const thought = (t: string, messageId: string): SessionUpdate => ({
  sessionUpdate: "agent_thought_chunk",
  content: { type: "text", text: t },
  messageId,
});
const assistantCalls = (content: string | null, calls: Array<[id: string, name: string, args: string]>): ChatMessage => ({
  role: "assistant",
  content,
  tool_calls: calls.map(([id, name, args]) => ({ id, type: "function", function: { name, arguments: args } })),
});
const toolMessage = (id: string, content: string): ChatMessage => ({ role: "tool", tool_call_id: id, content });
const sentMessages = (key: string, call: number) => mock.calls(key)[call]!.body.messages;

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

describe("runTurn: the tool-calling loop", () => {
  it("runs a called tool with its parsed input, reports it, feeds the output back and ends with the final answer", async () => {
    const key = script("loop", [
      {
        text: "Let me add.",
        chunkSize: 6,
        toolCalls: [{ id: "call_1", name: "add", arguments: { a: 2, b: 3 } }],
        usage: { prompt_tokens: 20, completion_tokens: 5 },
      },
      { text: "2 + 3 = 5.", chunkSize: 6, usage: { prompt_tokens: 40, completion_tokens: 6 } },
    ]);
    const log: string[] = [];
    const h = harness();
    const controller = new AbortController();
    const outcome = await runTurn(turnInput(key, [addTool(log)]), h.deps, controller.signal);

    expect(outcome).toEqual({
      stopReason: "end_turn",
      usage: { promptTokens: 40, completionTokens: 6 },
      totalUsage: { promptTokens: 60, completionTokens: 11 },
      modelCalls: 2,
      toolCalls: 1,
      toolsUsed: ["add"],
    });
    expect(log).toEqual(['start call_1 {"a":2,"b":3}', "end call_1"]);
    expect(h.contexts).toEqual([{ toolCallId: "call_1", signal: controller.signal }]);
    expect(h.updates).toEqual([
      chunk("Let me", "id-1"),
      chunk(" add.", "id-1"),
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "add 2 + 3",
        kind: "think",
        status: "pending",
        rawInput: { a: 2, b: 3 },
        locations: [],
      },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed", content: text("5") },
      chunk("2 + 3 ", "id-3"),
      chunk("= 5.", "id-3"),
    ]);
    expect(h.recorded).toEqual([
      assistantCalls("Let me add.", [["call_1", "add", '{"a":2,"b":3}']]),
      toolMessage("call_1", "5"),
      { role: "assistant", content: "2 + 3 = 5." },
    ]);
    expect(h.progress).toEqual([
      { type: "model_call", n: 1 },
      { type: "tool", name: "add", phase: "start" },
      { type: "tool", name: "add", phase: "end" },
      { type: "model_call", n: 2 },
    ]);

    const calls = mock.calls(key);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.body).toMatchObject({ model: "mock-model", stream: true, stream_options: { include_usage: true } });
    expect(calls[0]!.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "add",
          description: "Adds two numbers.",
          // Closed, as the runner enforces; no `$schema` URI, which some model APIs reject.
          parameters: {
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"],
            additionalProperties: false,
          },
        },
      },
    ]);
    expect(sentMessages(key, 0)).toEqual([SYSTEM(key), USER]);
    expect(sentMessages(key, 1)).toEqual([SYSTEM(key), USER, ...h.recorded.slice(0, 2)]);
  });

  it("runs several edits or commands of one response one after another, in order", async () => {
    const key = script("several", [
      {
        toolCalls: [
          { id: "c1", name: "add", arguments: { a: 1, b: 2 } },
          { id: "c2", name: "add", arguments: { a: 10, b: 20 } },
        ],
      },
      { text: "3 and 30" },
    ]);
    const log: string[] = [];
    // Each call is counted (for usage) before it runs, once.
    const counted: number[] = [];
    const h = harness({ toolCallStarted: () => void counted.push(log.length) });
    const outcome = await runTurn(turnInput(key, [addTool(log, { c1: 30 }, "execute")]), h.deps, new AbortController().signal);

    expect(outcome.stopReason).toBe("end_turn");
    expect(log).toEqual(['start c1 {"a":1,"b":2}', "end c1", 'start c2 {"a":10,"b":20}', "end c2"]);
    expect(counted).toEqual([0, 2]);
    expect(h.updates.map((u) => [u.sessionUpdate, "toolCallId" in u ? u.toolCallId : null, "status" in u ? u.status : null])).toEqual([
      ["tool_call", "c1", "pending"],
      ["tool_call_update", "c1", "in_progress"],
      ["tool_call_update", "c1", "completed"],
      ["tool_call", "c2", "pending"],
      ["tool_call_update", "c2", "in_progress"],
      ["tool_call_update", "c2", "completed"],
      ["agent_message_chunk", null, null],
    ]);
    expect(h.recorded).toEqual([
      assistantCalls(null, [
        ["c1", "add", '{"a":1,"b":2}'],
        ["c2", "add", '{"a":10,"b":20}'],
      ]),
      toolMessage("c1", "3"),
      toolMessage("c2", "30"),
      { role: "assistant", content: "3 and 30" },
    ]);
    expect(sentMessages(key, 1)).toEqual([SYSTEM(key), USER, ...h.recorded.slice(0, 3)]);
  });

  it("runs the reads of one response together, the edit after them, and answers the model in its own order", async () => {
    const key = script("together", [
      {
        toolCalls: [
          { id: "e1", name: "write", arguments: { a: 0, b: 0 } },
          { id: "r1", name: "add", arguments: { a: 1, b: 2 } },
          { id: "r2", name: "add", arguments: { a: 10, b: 20 } },
        ],
      },
      { text: "done" },
    ]);
    const log: string[] = [];
    const counted: string[] = [];
    const h = harness({ toolCallStarted: () => void counted.push(log.at(-1) ?? "") });
    const write = { ...addTool(log, {}, "edit"), name: "write" };
    const outcome = await runTurn(turnInput(key, [addTool(log, { r1: 40 }), write]), h.deps, new AbortController().signal);

    expect(outcome).toMatchObject({ stopReason: "end_turn", toolCalls: 3, toolsUsed: ["add", "write"] });
    expect(log).toEqual(['start r1 {"a":1,"b":2}', 'start r2 {"a":10,"b":20}', "end r2", "end r1", 'start e1 {"a":0,"b":0}', "end e1"]);
    expect(counted).toHaveLength(3);
    expect(h.updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => "toolCallId" in u && u.toolCallId)).toEqual(["r1", "r2", "e1"]);
    const answers = [toolMessage("e1", "0"), toolMessage("r1", "3"), toolMessage("r2", "30")];
    expect(h.recorded.slice(1, 4)).toEqual(answers);
    expect(sentMessages(key, 1).slice(-3)).toEqual(answers);
  });

  it("fails unknown tools, invalid JSON and schema-invalid arguments with the reason, tells the model and carries on", async () => {
    const key = script("invalid", [
      {
        toolCalls: [
          { id: "c1", name: "nope", arguments: { x: 1 } },
          { id: "c2", name: "add", arguments: '{"a":1,' },
          { id: "c3", name: "add", arguments: { a: "two", b: 2 } },
          { id: "c4", name: "add", arguments: { a: 1, b: 2, c: 3 } },
        ],
      },
      { text: "Sorry." },
    ]);
    const log: string[] = [];
    const h = harness();
    const outcome = await runTurn(turnInput(key, [addTool(log)]), h.deps, new AbortController().signal);

    const unknown = 'Unknown tool "nope". Available: add.';
    // The parser's own reason (its wording is V8's, so it is taken from the parser here).
    const reason = (() => {
      try {
        JSON.parse('{"a":1,');
      } catch (err) {
        return (err as Error).message;
      }
    })();
    const badJson = `The arguments for add are not valid JSON (${reason}).`;
    const badInput = "Invalid arguments for add: a: Invalid input: expected number, received string";
    const unknownKey = 'Invalid arguments for add: unknown key "c" (accepted keys: a, b)';
    expect(log).toEqual([]);
    expect(h.updates).toEqual([
      { sessionUpdate: "tool_call", toolCallId: "c1", title: "nope", kind: "other", status: "failed", rawInput: { x: 1 }, content: text(unknown) },
      { sessionUpdate: "tool_call", toolCallId: "c2", title: "add", kind: "other", status: "failed", rawInput: '{"a":1,', content: text(badJson) },
      {
        sessionUpdate: "tool_call",
        toolCallId: "c3",
        title: "add",
        kind: "other",
        status: "failed",
        rawInput: { a: "two", b: 2 },
        content: text(badInput),
      },
      { sessionUpdate: "tool_call", toolCallId: "c4", title: "add", kind: "other", status: "failed", rawInput: { a: 1, b: 2, c: 3 }, content: text(unknownKey) },
      chunk("Sorry.", "id-3"),
    ]);
    const answers = [
      toolMessage("c1", `Error: ${unknown}`),
      toolMessage("c2", `Error: ${badJson}`),
      toolMessage("c3", `Error: ${badInput}`),
      toolMessage("c4", `Error: ${unknownKey}`),
    ];
    expect(h.recorded.slice(1)).toEqual([...answers, { role: "assistant", content: "Sorry." }]);
    expect(sentMessages(key, 1).slice(-4)).toEqual(answers);
    expect(outcome).toMatchObject({ stopReason: "end_turn", modelCalls: 2, toolsUsed: ["nope", "add"] });
  });

  it("reports a ToolError's message, and any other throw as an unexpected failure", async () => {
    const failing: Tool<{ how: "tool" | "plain" }> = {
      name: "fail",
      description: "Always fails.",
      kind: "execute",
      inputSchema: z.object({ how: z.enum(["tool", "plain"]) }),
      title: ({ how }) => `fail (${how})`,
      async run({ how }) {
        if (how === "tool") throw new ToolError("disk is full");
        throw new Error("kaput");
      },
    };
    const key = script("toolerror", [
      {
        toolCalls: [
          { id: "c1", name: "fail", arguments: { how: "tool" } },
          { id: "c2", name: "fail", arguments: { how: "plain" } },
        ],
      },
      { text: "It failed." },
    ]);
    const h = harness();
    const outcome = await runTurn(turnInput(key, [failing]), h.deps, new AbortController().signal);

    expect(outcome.stopReason).toBe("end_turn");
    expect(h.updates.slice(0, 6)).toEqual([
      { sessionUpdate: "tool_call", toolCallId: "c1", title: "fail (tool)", kind: "execute", status: "pending", rawInput: { how: "tool" }, locations: [] },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "failed", content: text("disk is full") },
      { sessionUpdate: "tool_call", toolCallId: "c2", title: "fail (plain)", kind: "execute", status: "pending", rawInput: { how: "plain" }, locations: [] },
      { sessionUpdate: "tool_call_update", toolCallId: "c2", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "c2", status: "failed", content: text("fail failed unexpectedly: kaput") },
    ]);
    expect(sentMessages(key, 1).slice(-2)).toEqual([
      toolMessage("c1", "Error: disk is full"),
      toolMessage("c2", "Error: fail failed unexpectedly: kaput"),
    ]);
  });

  it("stops with max_turn_requests after exactly maxModelCalls model calls, every tool call answered", async () => {
    const step = (i: number): MockStep => ({ toolCalls: [{ id: `c${i}`, name: "add", arguments: { a: i, b: i } }] });
    const key = script("forever", [step(1), step(2), step(3), step(4), step(5)]);
    const h = harness();
    const outcome = await runTurn(turnInput(key, [addTool()], { maxModelCalls: 3 }), h.deps, new AbortController().signal);

    expect(outcome).toMatchObject({ stopReason: "max_turn_requests", modelCalls: 3, toolsUsed: ["add"] });
    expect(mock.calls(key)).toHaveLength(3);
    expect(h.recorded).toEqual([
      assistantCalls(null, [["c1", "add", '{"a":1,"b":1}']]),
      toolMessage("c1", "2"),
      assistantCalls(null, [["c2", "add", '{"a":2,"b":2}']]),
      toolMessage("c2", "4"),
      assistantCalls(null, [["c3", "add", '{"a":3,"b":3}']]),
      toolMessage("c3", "6"),
    ]);
    expect(DEFAULT_MAX_MODEL_CALLS).toBe(50);
  });
});

describe("runTurn: stop reasons and streamed content", () => {
  it("maps finish_reason length to max_tokens, keeping the cut-off text", async () => {
    const key = script("length", [{ text: "The answer is", finishReason: "length" }]);
    const h = harness();
    const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
    expect(outcome).toMatchObject({ stopReason: "max_tokens", modelCalls: 1 });
    expect(outcome.error).toBeUndefined();
    expect(h.recorded).toEqual([{ role: "assistant", content: "The answer is" }]);
  });

  it("maps finish_reason content_filter to refusal", async () => {
    const key = script("filter", [{ text: "", finishReason: "content_filter" }]);
    const h = harness();
    const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
    expect(outcome).toMatchObject({ stopReason: "refusal", modelCalls: 1 });
    expect(outcome.error).toBeUndefined();
    expect(h.updates).toEqual([]);
    expect(h.recorded).toEqual([]);
  });

  it.each(["reasoning_content", "reasoning"] as const)(
    "streams %s deltas as agent_thought_chunks, never as message text",
    async (field) => {
      const key = script(`think-${field}`, [{ reasoning: "Two plus three is five.", reasoningField: field, text: "5", chunkSize: 8 }]);
      const h = harness();
      const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
      expect(outcome.stopReason).toBe("end_turn");
      expect(h.updates).toEqual([
        thought("Two plus", "id-2"),
        thought(" three i", "id-2"),
        thought("s five.", "id-2"),
        chunk("5", "id-1"),
      ]);
      expect(h.recorded).toEqual([{ role: "assistant", content: "5" }]);
    },
  );

  it("gives every message chunk of one model call one messageId, and each call its own", async () => {
    const key = script("ids", [
      { text: "First call text", chunkSize: 4, toolCalls: [{ id: "c1", name: "add", arguments: { a: 1, b: 1 } }] },
      { text: "Second call text", chunkSize: 4 },
    ]);
    const h = harness();
    await runTurn(turnInput(key, [addTool()]), h.deps, new AbortController().signal);
    const chunks = h.updates.flatMap((u) =>
      u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [[u.messageId, u.content.text]] : [],
    );
    expect(chunks).toEqual([
      ["id-1", "Firs"],
      ["id-1", "t ca"],
      ["id-1", "ll t"],
      ["id-1", "ext"],
      ["id-3", "Seco"],
      ["id-3", "nd c"],
      ["id-3", "all "],
      ["id-3", "text"],
    ]);
  });

  it("merges deltas within the coalescing window and flushes them when the call ends", async () => {
    const key = script("coalesce", [{ text: "abcdefghij", chunkSize: 2 }]);
    const h = harness({ coalesceMs: 60_000 });
    const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
    expect(outcome.stopReason).toBe("end_turn");
    expect(h.updates).toEqual([chunk("ab", "id-1"), chunk("cdefghij", "id-1")]);
  });

  it("records the answer's whole text, without its reasoning, when its deltas are merged", async () => {
    const key = script("coalesce-record", [{ reasoning: "Two plus three.", text: "It is five, plainly.", chunkSize: 3 }]);
    const h = harness({ coalesceMs: 60_000 });
    await runTurn(turnInput(key), h.deps, new AbortController().signal);
    expect(h.recorded).toEqual([{ role: "assistant", content: "It is five, plainly." }]);
    expect(h.updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("")).toBe("It is five, plainly.");
  });

  it("sends the model id and reasoning effort, and no tools when there are none", async () => {
    const key = script("options", [{ text: "ok" }]);
    await runTurn(turnInput(key, [], { reasoningEffort: "high" }), harness().deps, new AbortController().signal);
    const body = mock.calls(key)[0]!.body;
    expect(body.model).toBe("mock-model");
    expect(body.reasoning_effort).toBe("high");
    expect(body).not.toHaveProperty("tools");
  });

  it("sends every request as the openai client builds it, less its telemetry headers: its auth, its user agent and a JSON body", async () => {
    const key = script("headers", [{ text: "ok" }, { text: "ok again" }]);
    await runTurn(turnInput(key), harness().deps, new AbortController().signal);
    // The second call reuses what the first built (the provider keeps its URL and headers).
    await runTurn(turnInput(key), harness().deps, new AbortController().signal);
    const calls = mock.calls(key);
    expect(calls).toHaveLength(2);
    for (const { headers, body } of calls) {
      expect(headers["authorization"]).toBe("Bearer test-key");
      expect(headers["content-type"]).toBe("application/json");
      expect(headers["user-agent"]).toMatch(/^OpenAI\/JS /);
      expect(headers["accept"]).toBe("application/json");
      expect(Object.keys(headers).filter((name) => name.startsWith("x-stainless-"))).toEqual([]);
      expect(body.stream).toBe(true);
    }
  });

  it("adds takeInjected messages before the next model call", async () => {
    const key = script("inject", [{ toolCalls: [{ id: "c1", name: "add", arguments: { a: 2, b: 2 } }] }, { text: "Hi, it is 4." }]);
    const queue: ChatMessage[] = [{ role: "user", content: "Be brief." }];
    const steer: ChatMessage = { role: "user", content: "Also say hi." };
    const tool = addTool();
    const run = tool.run.bind(tool);
    tool.run = async (input, ctx) => {
      queue.push(steer);
      return run(input, ctx);
    };
    const h = harness({ takeInjected: () => queue.splice(0) });
    const outcome = await runTurn(turnInput(key, [tool]), h.deps, new AbortController().signal);

    expect(outcome.stopReason).toBe("end_turn");
    expect(sentMessages(key, 0)).toEqual([SYSTEM(key), USER, { role: "user", content: "Be brief." }]);
    expect(sentMessages(key, 1)).toEqual([
      SYSTEM(key),
      USER,
      { role: "user", content: "Be brief." },
      assistantCalls(null, [["c1", "add", '{"a":2,"b":2}']]),
      toolMessage("c1", "4"),
      steer,
    ]);
    expect(h.recorded).toEqual([
      { role: "user", content: "Be brief." },
      assistantCalls(null, [["c1", "add", '{"a":2,"b":2}']]),
      toolMessage("c1", "4"),
      steer,
      { role: "assistant", content: "Hi, it is 4." },
    ]);
  });
});

describe("runTurn: model failures", () => {
  it("retries a 429 and streams exactly one answer", async () => {
    const key = script("ratelimit", [{ status: 429 }, { text: "Recovered answer", chunkSize: 9 }]);
    const h = harness();
    const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
    expect(outcome).toMatchObject({ stopReason: "end_turn", modelCalls: 1 });
    expect(outcome.error).toBeUndefined();
    expect(mock.calls(key)).toHaveLength(2);
    expect(h.updates).toEqual([chunk("Recovered", "id-1"), chunk(" answer", "id-1")]);
    expect(h.recorded).toEqual([{ role: "assistant", content: "Recovered answer" }]);
  });

  it("gives up after three 500s: sets outcome.error, says so in the conversation and ends the turn", async () => {
    const key = script("down", [
      { status: 500, text: "kaboom" },
      { status: 500, text: "kaboom" },
      { status: 500, text: "kaboom" },
      { text: "never asked" },
    ]);
    const h = harness();
    const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
    const message =
      "The model request failed after 3 tries: model API answered 500: 500 kaboom. The session is intact; send your prompt again to retry.";
    // A failure is never a stop reason: the outcome carries the error instead.
    expect(outcome).toEqual({
      stopReason: null,
      usage: undefined,
      totalUsage: { promptTokens: 0, completionTokens: 0 },
      modelCalls: 1,
      toolCalls: 0,
      toolsUsed: [],
      error: { code: -32603, message },
    });
    expect(mock.calls(key)).toHaveLength(3);
    expect(h.updates).toEqual([chunk(`\n\n⚠️ ${message}`, "id-3")]);
    expect(h.recorded).toEqual([]);
  });

  it("does not retry a 400", async () => {
    const key = script("bad", [{ status: 400, text: "bad model" }, { text: "never asked" }]);
    const h = harness();
    const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
    expect(mock.calls(key)).toHaveLength(1);
    expect(outcome.error).toEqual({
      code: -32603,
      message: "The model request failed: model API answered 400: 400 bad model. The session is intact; send your prompt again to retry.",
    });
  });

  it("retries a stream that broke before anything arrived", async () => {
    const key = script("dropped", [{ text: "lost", dropAfterChunks: 0 }, { text: "Second try" }]);
    const h = harness();
    const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
    expect(mock.calls(key)).toHaveLength(2);
    expect(outcome).toMatchObject({ stopReason: "end_turn", modelCalls: 1 });
    expect(outcome.error).toBeUndefined();
    expect(h.updates).toEqual([chunk("Second t", "id-1"), chunk("ry", "id-1")]);
    expect(h.recorded).toEqual([{ role: "assistant", content: "Second try" }]);
  });

  it("does not retry a stream that broke after text arrived, so no text is duplicated", async () => {
    // The first chunk surely arrives (the next is 100 ms later); the second is written just before the drop.
    const key = script("broken", [{ text: "abcdefghijklmnop", chunkSize: 4, dropAfterChunks: 2, chunkDelayMs: 100 }, { text: "never asked" }]);
    const h = harness();
    const outcome = await runTurn(turnInput(key), h.deps, new AbortController().signal);
    expect(mock.calls(key)).toHaveLength(1);
    expect(outcome.stopReason).toBeNull();
    expect(outcome.error?.message).toMatch(/^The model request failed: model API unreachable: .+\. The session is intact/);
    const streamed = h.updates.slice(0, -1);
    const streamedText = streamed.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "?")).join("");
    expect(["abcd", "abcdefgh"]).toContain(streamedText);
    expect(streamed).toEqual(streamedText === "abcd" ? [chunk("abcd", "id-1")] : [chunk("abcd", "id-1"), chunk("efgh", "id-1")]);
    expect(h.updates.at(-1)).toEqual(chunk(`\n\n⚠️ ${outcome.error!.message}`, "id-3"));
    expect(h.recorded).toEqual([{ role: "assistant", content: streamedText }]);
  });
});

describe("runTurn: cancellation", () => {
  it("returns cancelled without calling the model when the signal is already aborted", async () => {
    const key = script("pre", [{ text: "never" }]);
    const controller = new AbortController();
    controller.abort();
    const h = harness();
    const outcome = await runTurn(turnInput(key), h.deps, controller.signal);
    expect(outcome).toEqual({ stopReason: "cancelled", usage: undefined, totalUsage: { promptTokens: 0, completionTokens: 0 }, modelCalls: 0, toolCalls: 0, toolsUsed: [] });
    expect(mock.calls(key)).toHaveLength(0);
    expect(h.updates).toEqual([]);
    expect(h.recorded).toEqual([]);
  });

  it("stops mid-stream with cancelled and records the partial text", async () => {
    const key = script("slow", [{ text: "Hello there, this is slow", chunkSize: 6, chunkDelayMs: 1_000 }]);
    const controller = new AbortController();
    const h = harness();
    h.deps.emit = (update) => {
      h.updates.push(update);
      controller.abort();
    };
    const outcome = await runTurn(turnInput(key), h.deps, controller.signal);
    expect(outcome).toMatchObject({ stopReason: "cancelled", modelCalls: 1 });
    expect(outcome.error).toBeUndefined();
    expect(h.updates).toEqual([chunk("Hello ", "id-1")]);
    expect(h.recorded).toEqual([{ role: "assistant", content: "Hello " }]);
  });

  it("answers the running and the remaining tool calls when cancelled during a tool", async () => {
    const waiting: Tool<Record<string, never>> = {
      name: "wait",
      description: "Waits until cancelled.",
      kind: "execute",
      inputSchema: z.object({}),
      title: () => "wait",
      run: (_input, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new ToolError("stopped")), { once: true })),
    };
    const log: string[] = [];
    const key = script("cancel-tool", [
      {
        toolCalls: [
          { id: "c1", name: "wait", arguments: {} },
          { id: "c2", name: "add", arguments: { a: 1, b: 1 } },
        ],
      },
      { text: "never asked" },
    ]);
    const controller = new AbortController();
    const h = harness({
      onProgress: (event) => {
        if (event.type === "tool" && event.phase === "start") setTimeout(() => controller.abort(), 10);
      },
    });
    const outcome = await runTurn(turnInput(key, [waiting, addTool(log, {}, "edit")]), h.deps, controller.signal);

    expect(outcome).toMatchObject({ stopReason: "cancelled", modelCalls: 1, toolsUsed: ["wait"] });
    expect(log).toEqual([]);
    expect(mock.calls(key)).toHaveLength(1);
    expect(h.updates).toEqual([
      { sessionUpdate: "tool_call", toolCallId: "c1", title: "wait", kind: "execute", status: "pending", rawInput: {}, locations: [] },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "failed", content: text("Cancelled by the user.") },
    ]);
    expect(h.recorded).toEqual([
      assistantCalls(null, [
        ["c1", "wait", "{}"],
        ["c2", "add", '{"a":1,"b":1}'],
      ]),
      toolMessage("c1", "Error: Cancelled by the user."),
      toolMessage("c2", "Not run: the user cancelled the turn."),
    ]);
  });

  it("answers every tool call of a response that completed just as the turn was cancelled", async () => {
    const key = script("cancel-end", [
      {
        text: "Calling.",
        toolCalls: [
          { id: "c1", name: "add", arguments: { a: 1, b: 1 } },
          { id: "c2", name: "add", arguments: { a: 2, b: 2 } },
        ],
      },
    ]);
    const controller = new AbortController();
    // The real provider, with the cancel arriving right after its stream completed.
    const cancelling: ModelProvider = {
      async *stream(request) {
        const result = yield* provider.stream(request);
        controller.abort();
        return result;
      },
    };
    const log: string[] = [];
    const h = harness({ provider: cancelling });
    const outcome = await runTurn(turnInput(key, [addTool(log)]), h.deps, controller.signal);

    expect(outcome).toMatchObject({ stopReason: "cancelled", modelCalls: 1, toolsUsed: [] });
    expect(log).toEqual([]);
    expect(h.updates).toEqual([chunk("Calling.", "id-1")]);
    expect(h.recorded).toEqual([
      assistantCalls("Calling.", [
        ["c1", "add", '{"a":1,"b":1}'],
        ["c2", "add", '{"a":2,"b":2}'],
      ]),
      toolMessage("c1", "Not run: the user cancelled the turn."),
      toolMessage("c2", "Not run: the user cancelled the turn."),
    ]);
  });

  it("stops waiting between retries when cancelled", async () => {
    const key = script("cancel-backoff", [{ status: 429 }, { text: "never asked" }]);
    const controller = new AbortController();
    const h = harness({ retry: { attempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const turn = runTurn(turnInput(key), h.deps, controller.signal);
    await until(() => mock.calls(key).length === 1);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    const outcome = await turn;
    expect(outcome).toMatchObject({ stopReason: "cancelled", modelCalls: 1 });
    expect(outcome.error).toBeUndefined();
    expect(mock.calls(key)).toHaveLength(1);
    expect(h.updates).toEqual([]);
    expect(h.recorded).toEqual([]);
  });
});

/** A model request for the provider alone, outside a turn. */
function providerRequest(key: string, signal: AbortSignal): ModelRequest {
  return { model: "mock-model", messages: [{ role: "system", content: `[[mock:${key}]]` }, { role: "user", content: "Hi" }], tools: [], signal };
}

describe("OpenAIProvider: the turn's signal", () => {
  it("makes no request when the turn is cancelled already", async () => {
    mock.setScript("before", [{ text: "never sent" }]);
    const turn = new AbortController();
    turn.abort();
    await expect(provider.stream(providerRequest("before", turn.signal)).next()).rejects.toThrow();
    expect(mock.calls("before")).toHaveLength(0);
  });

  it("cancelling while the answer streams ends the request, not only the reading", async () => {
    // A second chunk 30 s later: a read the cancel did not reach would wait for it.
    mock.setScript("during", [{ text: "Hello there", chunkSize: 6, chunkDelayMs: 30_000 }]);
    const turn = new AbortController();
    const stream = provider.stream(providerRequest("during", turn.signal));
    expect(await stream.next()).toEqual({ done: false, value: { type: "text", text: "Hello " } });
    turn.abort();
    await expect(stream.next()).rejects.toThrow();
    // The mock sees its socket closed.
    await expect.poll(() => mock.calls("during")[0]?.endAt, { timeout: 5_000 }).toBeDefined();
  });
});
