/**
 * `clarify`, `memory`, `session_search` and the session-metadata methods end to
 * end: `wrangler dev`, the mock model and the official SDK client, which
 * answers `elicitation/create` itself. Every frame the service sends is checked
 * against the ACP JSON schema (unstable methods against the unstable one).
 */
import { describe, expect, it } from "vitest";
import { useE2eService } from "./e2e-service.js";
import { connectSdk, type SdkClient } from "./sdk-client.js";

const TOKEN = "tok-e2e-tools";
const e2e = useE2eService(TOKEN);

async function connect(handlers: Parameters<typeof connectSdk>[2] = {}, clientCapabilities: Record<string, unknown> = {}): Promise<SdkClient> {
  const c = await connectSdk(e2e.server.wsUrl, TOKEN, handlers);
  e2e.clients.push(c);
  await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities });
  return c;
}

const cwdFor = (name: string) => `/home/dev/${name}-${crypto.randomUUID().slice(0, 8)}`;
const toolMessages = (key: string, call: number) =>
  Object.fromEntries(e2e.mock.calls(key)[call]!.body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]));
const offered = (key: string) => ((e2e.mock.calls(key)[0]!.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const rest = (path: string, init: RequestInit = {}) =>
  fetch(`${e2e.server.url}${path}`, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" } });

describe("clarify through the SDK client's elicitation handler", () => {
  it("asks the editor in form mode and gives the model the user's choice", async () => {
    const asked: any[] = [];
    const c = await connect({ elicitation: (params) => (asked.push(params), { action: "accept", content: { answer: "SQLite", other: "for now" } }) }, {
      elicitation: { form: {} },
    });
    e2e.mock.setScript("e2e-clarify", [
      { toolCalls: [{ id: "q1", name: "clarify", arguments: { question: "Which database?", choices: ["Postgres", "SQLite"] } }] },
      { text: "SQLite it is." },
    ]);
    const { sessionId } = await c.agent.request("session/new", { cwd: cwdFor("clarify"), mcpServers: [] });
    const answer = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "set up the cache [[mock:e2e-clarify]]" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(asked).toEqual([
      expect.objectContaining({ mode: "form", sessionId, toolCallId: "q1", message: "Which database?", requestedSchema: expect.objectContaining({ required: ["answer"] }) }),
    ]);
    expect(toolMessages("e2e-clarify", 1)).toEqual({ q1: "The user answered: SQLite\nThey added: for now" });
    expect(offered("e2e-clarify")).toContain("clarify");
    expect(c.validator.errors).toEqual([]);
  });

  it("withdraws the question when the turn is cancelled: the SDK client's handler sees $/cancel_request", async () => {
    let withdrawn!: () => void;
    const sawWithdrawal = new Promise<void>((resolve) => (withdrawn = resolve));
    let asked!: () => void;
    const sawQuestion = new Promise<void>((resolve) => (asked = resolve));
    const c = await connect(
      {
        elicitation: (_params, signal) =>
          new Promise((_resolve, reject) => {
            asked();
            signal.addEventListener("abort", () => (withdrawn(), reject(new Error("withdrawn"))), { once: true });
          }),
      },
      { elicitation: { form: {} } },
    );
    e2e.mock.setScript("e2e-clarify-cancel", [{ toolCalls: [{ id: "q1", name: "clarify", arguments: { question: "Ship it?" } }] }]);
    const { sessionId } = await c.agent.request("session/new", { cwd: cwdFor("clarify"), mcpServers: [] });
    const running = c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "ship [[mock:e2e-clarify-cancel]]" }] });
    await sawQuestion;
    await c.agent.notify("session/cancel", { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    await sawWithdrawal;
    expect(c.validator.errors).toEqual([]);
  });

  it("is not offered to a client without elicitation", async () => {
    const c = await connect();
    e2e.mock.setScript("e2e-no-clarify", [{ text: "no questions" }]);
    const { sessionId } = await c.agent.request("session/new", { cwd: cwdFor("clarify"), mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi [[mock:e2e-no-clarify]]" }] });
    expect(offered("e2e-no-clarify")).not.toContain("clarify");
  });
});

describe("memory across sessions", () => {
  it("keeps what the tool adds, shows it in the next session's system prompt and over REST", async () => {
    const cwd = cwdFor("memory");
    const c = await connect();
    e2e.mock.setScript("e2e-memory", [
      { toolCalls: [{ id: "m1", name: "memory", arguments: { action: "add", content: "Run tests with npm test." } }] },
      { text: "Noted." },
    ]);
    const first = await c.agent.request("session/new", { cwd, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId: first.sessionId, prompt: [{ type: "text", text: "remember [[mock:e2e-memory]]" }] });
    expect(toolMessages("e2e-memory", 1).m1).toMatch(/^Project memory updated \(1 entry, 24 of 4,000 characters\)/);

    e2e.mock.setScript("e2e-memory-next", [{ text: "I know how to run the tests." }]);
    const second = await c.agent.request("session/new", { cwd, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId: second.sessionId, prompt: [{ type: "text", text: "how? [[mock:e2e-memory-next]]" }] });
    expect(e2e.mock.calls("e2e-memory-next")[0]!.body.messages[0]!.content).toContain("- Run tests with npm test.");

    const got = await rest(`/v1/memory?cwd=${encodeURIComponent(cwd)}`);
    expect(await got.json()).toEqual({ cwd, entries: ["Run tests with npm test."], characters: 24 });
    const bad = await rest(`/v1/memory?cwd=${encodeURIComponent(cwd)}`, { method: "PUT", body: JSON.stringify({ entries: [""] }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe(-32602);
    expect(c.validator.errors).toEqual([]);
  });
});

describe("session search and session metadata", () => {
  it("finds an earlier session, then titles, archives and unarchives it", async () => {
    const word = `zqe2e${crypto.randomUUID().slice(0, 8)}`;
    const c = await connect();
    const cwd = cwdFor("search");
    const { sessionId } = await c.agent.request("session/new", { cwd, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `the ${word} is broken` }] });
    let results: any[] = [];
    for (let i = 0; i < 100 && results.length === 0; i++) {
      results = ((await (await rest(`/v1/search?q=${word}`)).json()) as any).results;
      if (results.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(results).toEqual([expect.objectContaining({ sessionId, cwd, snippet: expect.stringContaining(`**${word}**`) })]);

    expect(await c.agent.request("session/set_title", { sessionId, title: "Broken thing" })).toEqual({ title: "Broken thing" });
    expect(await c.agent.request("session/status", { sessionId })).toEqual({ status: "open" });
    expect(await c.agent.request("session/archive", { sessionId })).toEqual({});
    expect((await c.agent.request("session/list", { cwd })).sessions).toEqual([]);
    const archived = await c.agent.request<{ sessions: unknown[] }>("session/list", { cwd, archived: "only" });
    expect(archived.sessions).toEqual([expect.objectContaining({ sessionId, title: "Broken thing", archived: true })]);
    expect(await c.agent.request("session/status", { sessionId })).toEqual({ status: "saved" });
    expect(await c.agent.request("session/unarchive", { sessionId })).toEqual({});
    expect((await c.agent.request("session/list", { cwd })).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    await expect(c.agent.request("session/status", { sessionId: "no-such-session" })).rejects.toMatchObject({
      code: -32002,
      data: { sessionId: "no-such-session" },
    });
    expect(c.validator.errors).toEqual([]);
  });
});
