/**
 * ACP over Streamable HTTP on /acp with the SDK's own `createHttpStream`
 * client, against wrangler dev and the mock model: the same connection and
 * method table as a WebSocket client, SSE streams, statuses and Last-Event-ID.
 */
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useE2eService } from "./e2e-service.js";
import { connectHttpSdk, type HttpSdkClient } from "./http-client.js";
import { agentText, connectSdk } from "./sdk-client.js";

const TOKEN = "e2e-http-token";
const OTHER_TOKEN = "e2e-http-other";
// OTHER_TOKEN is a second tenant's ("other"), for the other-tenant 404. The shared server has no coalescing
// window (HERMES_COALESCE_MS=0): every model token is its own logged update, so a resume can be asked to span more than the 512-event buffer.
const e2e = useE2eService(TOKEN);
const CWD = "/home/dev/project";

async function connect(handlers: Parameters<typeof connectHttpSdk>[2] = {}, caps: ClientCapabilities = {}): Promise<HttpSdkClient> {
  const c = connectHttpSdk(e2e.server.url, TOKEN, handlers);
  e2e.clients.push(c);
  const init = await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: caps });
  expect(init.protocolVersion).toBe(1);
  return c;
}

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${e2e.server.url}/acp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } };

async function rawConnection(): Promise<string> {
  const res = await post(INIT);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toContain("application/json");
  expect(((await res.json()) as { result: { protocolVersion: number } }).result.protocolVersion).toBe(1);
  return res.headers.get("Acp-Connection-Id")!;
}

/** Reads SSE events from a GET until `until` holds or the time runs out. */
async function readEvents(res: Response, until: (events: { id: string; data: any }[]) => boolean, ms = 60_000): Promise<{ id: string; data: any }[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: { id: string; data: any }[] = [];
  let text = "";
  const deadline = Date.now() + ms;
  while (!until(events) && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<"late">((r) => setTimeout(() => r("late"), deadline - Date.now()))]);
    if (next === "late") break;
    const { value, done } = next;
    if (done) break;
    text += value;
    let cut: number;
    while ((cut = text.indexOf("\n\n")) >= 0) {
      const block = text.slice(0, cut);
      text = text.slice(cut + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (id !== undefined && data) events.push({ id, data: JSON.parse(data) });
    }
  }
  // Not awaited: a cancel that undici never settles must not hold the test (the reader is let go either way).
  void reader.cancel().catch(() => undefined);
  return events;
}

const isChunk = (e: { data: any }) => e.data.params?.update?.sessionUpdate === "agent_message_chunk";
/** The numbers of a `tokens` script's words ("t0 t1 …") in the order the chunks came. */
const tokenNumbers = (events: { data: any }[]) =>
  [...events.filter(isChunk).map((e) => e.data.params.update.content.text).join("").matchAll(/t(\d+)/g)].map((m) => Number(m[1]));
const seqsOf = (events: { data: any }[]) => events.map((e) => e.data.params?._meta?.hermes?.seq).filter((s): s is number => s !== undefined);

/** A raw HTTP connection with one session, its SSE GET, and a prompt POST. */
async function rawSession() {
  const connectionId = await rawConnection();
  const created = await post({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: CWD, mcpServers: [] } }, { "Acp-Connection-Id": connectionId });
  expect(created.status).toBe(202);
  const main = await fetch(`${e2e.server.url}/acp`, { headers: { Authorization: `Bearer ${TOKEN}`, Accept: "text/event-stream", "Acp-Connection-Id": connectionId } });
  const [newAnswer] = await readEvents(main, (ev) => ev.some((e) => e.data.id === 2));
  const sessionId = newAnswer!.data.result.sessionId as string;
  const sse = (last?: string) =>
    fetch(`${e2e.server.url}/acp`, {
      headers: { Authorization: `Bearer ${TOKEN}`, Accept: "text/event-stream", "Acp-Connection-Id": connectionId, "Acp-Session-Id": sessionId, ...(last ? { "Last-Event-ID": last } : {}) },
    });
  const prompt = (id: number, text: string) =>
    post({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text }] } }, { "Acp-Connection-Id": connectionId, "Acp-Session-Id": sessionId });
  return { connectionId, sessionId, sse, prompt };
}

/** `promise`, or a failure naming `what` once `ms` pass: a step that hangs says which one it was, not only that the test timed out. */
function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Waits (through REST, no stream open) until the session's history holds `count` assistant messages: the turn is over.
 * Each read has 10 s: under load, wrangler dev's proxy sometimes sends a request on its connection to the Worker
 * just after a client cancelled an SSE stream, and loses it ("Network connection lost" inside its ProxyWorker; the
 * Worker never sees it) while the client waits a minute or more for an answer. The next read gets through.
 */
async function turnsDone(sessionId: string, count: number, ms = 120_000): Promise<void> {
  // Raced as well: expect.poll awaits a pending read past its own timeout.
  const poll = expect
    .poll(
      async () => {
        const res = await fetch(`${e2e.server.url}/v1/sessions/${sessionId}/history`, {
          headers: { Authorization: `Bearer ${TOKEN}` },
          signal: AbortSignal.timeout(10_000),
        });
        if (!res.ok) return 0;
        const body = (await res.json()) as { messages: { message: { role: string } }[] };
        return body.messages.filter((m) => m.message.role === "assistant").length;
      },
      { timeout: ms, interval: 250 },
    )
    .toBeGreaterThanOrEqual(count);
  await within(`the session's history with ${count} answers`, ms + 10_000, poll);
}

describe("ACP over Streamable HTTP with the SDK's createHttpStream", () => {
  it("initializes, creates a session and streams a prompt over SSE", async () => {
    e2e.mock.setScript("http-stream", [{ chunks: ["Hello", " over", " HTTP"], chunkDelayMs: 5 }]);
    const c = await connect();
    const { sessionId } = await c.agent.request("session/new", { cwd: CWD, mcpServers: [] });
    const answer = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi [[mock:http-stream]]" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(agentText(c.updates, sessionId)).toBe("Hello over HTTP");
    // The prompt was POSTed with both headers and accepted with 202; the session's stream was opened.
    expect(c.requests.find((r) => r.method === "POST" && r.sessionId === sessionId)?.status).toBe(202);
    expect(c.requests.some((r) => r.method === "GET" && r.sessionId === sessionId && r.status === 200)).toBe(true);
  });

  it("asks permission and has the client write the file, both answered by POST", async () => {
    e2e.mock.setScript("http-write", [
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: `${CWD}/out.txt`, content: "new\n" } }] },
      { chunks: ["written"] },
    ]);
    const asked: any[] = [];
    const writes: any[] = [];
    const c = await connect(
      {
        permission: (p) => (asked.push(p), { outcome: { outcome: "selected", optionId: p.options.find((o: any) => o.kind.startsWith("allow")).optionId } }),
        writeTextFile: (p) => (writes.push(p), {}),
      },
      { fs: { readTextFile: true, writeTextFile: true } },
    );
    const { sessionId } = await c.agent.request("session/new", { cwd: CWD, mcpServers: [] });
    const answer = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write [[mock:http-write]]" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(writes).toEqual([expect.objectContaining({ sessionId, path: `${CWD}/out.txt`, content: "new\n" })]);
    expect(agentText(c.updates, sessionId)).toBe("written");
  });

  it("cancels a running turn", async () => {
    e2e.mock.setScript("http-cancel", [{ tokens: 2000, chunkDelayMs: 20 }]);
    const c = await connect();
    const { sessionId } = await c.agent.request("session/new", { cwd: CWD, mcpServers: [] });
    const running = c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "long [[mock:http-cancel]]" }] });
    await expect.poll(() => agentText(c.updates, sessionId).length, { timeout: 60_000 }).toBeGreaterThan(0);
    await c.agent.notify("session/cancel", { sessionId });
    expect((await running).stopReason).toBe("cancelled");
  });

  it("streams two sessions at once on one connection", async () => {
    e2e.mock.setScript("http-a", [{ chunks: ["alpha", " one"], chunkDelayMs: 20 }]);
    e2e.mock.setScript("http-b", [{ chunks: ["beta", " two"], chunkDelayMs: 20 }]);
    const c = await connect();
    const a = await c.agent.request("session/new", { cwd: CWD, mcpServers: [] });
    const b = await c.agent.request("session/new", { cwd: CWD, mcpServers: [] });
    const [ra, rb] = await Promise.all([
      c.agent.request("session/prompt", { sessionId: a.sessionId, prompt: [{ type: "text", text: "a [[mock:http-a]]" }] }),
      c.agent.request("session/prompt", { sessionId: b.sessionId, prompt: [{ type: "text", text: "b [[mock:http-b]]" }] }),
    ]);
    expect([ra.stopReason, rb.stopReason]).toEqual(["end_turn", "end_turn"]);
    expect(agentText(c.updates, a.sessionId)).toBe("alpha one");
    expect(agentText(c.updates, b.sessionId)).toBe("beta two");
  });

  it("loads the session on a second connection, and a WebSocket client watches the HTTP client's turn", async () => {
    // The mock keys a conversation by its first message: one script, a step per turn.
    e2e.mock.setScript("http-load", [{ chunks: ["first"] }, { chunks: ["watched", " turn"], chunkDelayMs: 5 }]);
    const first = await connect();
    const { sessionId } = await first.agent.request("session/new", { cwd: CWD, mcpServers: [] });
    await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one [[mock:http-load]]" }] });
    const second = await connect();
    await second.agent.request("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    expect(agentText(second.updates, sessionId)).toBe("first");

    const ws = await connectSdk(e2e.server.wsUrl, TOKEN);
    e2e.clients.push(ws);
    await ws.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await ws.agent.request("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    const before = agentText(ws.updates, sessionId);
    const answer = await second.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] });
    expect(answer.stopReason).toBe("end_turn");
    await expect.poll(() => agentText(ws.updates, sessionId).slice(before.length), { timeout: 30_000 }).toBe("watched turn");
  });

  it("resumes a dropped session stream from Last-Event-ID with what it missed", async () => {
    e2e.mock.setScript("http-resume", [{ chunks: ["a", "b", "c", "d", "e", "f"], chunkDelayMs: 250 }]);
    const connectionId = await rawConnection();
    const created = await post({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: CWD, mcpServers: [] } }, { "Acp-Connection-Id": connectionId });
    expect(created.status).toBe(202);
    const main = await fetch(`${e2e.server.url}/acp`, { headers: { Authorization: `Bearer ${TOKEN}`, Accept: "text/event-stream", "Acp-Connection-Id": connectionId } });
    const [newAnswer] = await readEvents(main, (ev) => ev.some((e) => e.data.id === 2));
    const sessionId = newAnswer!.data.result.sessionId as string;
    const sse = (last?: string) =>
      fetch(`${e2e.server.url}/acp`, {
        headers: { Authorization: `Bearer ${TOKEN}`, Accept: "text/event-stream", "Acp-Connection-Id": connectionId, "Acp-Session-Id": sessionId, ...(last ? { "Last-Event-ID": last } : {}) },
      });
    const firstStream = await sse();
    expect(firstStream.status).toBe(200);
    const prompted = await post(
      { jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "go [[mock:http-resume]]" }] } },
      { "Acp-Connection-Id": connectionId, "Acp-Session-Id": sessionId },
    );
    expect(prompted.status).toBe(202);
    const isChunk = (e: { data: any }) => e.data.params?.update?.sessionUpdate === "agent_message_chunk";
    // Drop the stream after the first chunk, while the turn goes on.
    const early = await readEvents(firstStream, (ev) => ev.some(isChunk));
    const lastId = early.at(-1)!.id;
    expect(Number(lastId)).toBe(early.at(-1)!.data.params._meta.hermes.seq);
    const resumed = await sse(lastId);
    const rest = await readEvents(resumed, (ev) => ev.some((e) => e.data.id === 3));
    const text = [...early, ...rest].filter(isChunk).map((e) => e.data.params.update.content.text).join("");
    expect(early.filter(isChunk).length).toBeGreaterThan(0);
    expect(text).toBe("abcdef");
    expect(rest.find((e) => e.data.id === 3)?.data.result.stopReason).toBe("end_turn");
    const seqs = [...early, ...rest].map((e) => e.data.params?._meta?.hermes?.seq).filter((s) => s !== undefined);
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it("answers the error statuses: 400, 404, 409, 401, 429 and a foreign Origin", async () => {
    const notInit = await post({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: CWD, mcpServers: [] } });
    expect(notInit.status).toBe(400);
    expect(((await notInit.json()) as any).error.message).toContain("must be an initialize request");
    expect((await post({ not: "json-rpc" })).status).toBe(400);

    const unknown = await post({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "x" } }, { "Acp-Connection-Id": "0".repeat(64) });
    expect(unknown.status).toBe(404);
    expect((await post(INIT, { "Acp-Connection-Id": "not-an-id" })).status).toBe(404);

    const connectionId = await rawConnection();
    const foreign = await fetch(`${e2e.server.url}/acp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${OTHER_TOKEN}`, "Content-Type": "application/json", "Acp-Connection-Id": connectionId },
      body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "session/list", params: {} }),
    });
    expect(foreign.status).toBe(404);

    const conflict = await post(
      { jsonrpc: "2.0", id: 6, method: "session/prompt", params: { sessionId: "sess-not-attached", prompt: [] } },
      { "Acp-Connection-Id": connectionId, "Acp-Session-Id": "sess-not-attached" },
    );
    expect(conflict.status).toBe(409);

    const origin = await post(INIT, { Origin: "https://evil.example" });
    expect(origin.status).toBe(403);

    const deleted = await fetch(`${e2e.server.url}/acp`, { method: "DELETE", headers: { Authorization: `Bearer ${TOKEN}`, "Acp-Connection-Id": connectionId } });
    expect(deleted.status).toBe(202);
    expect((await post({ jsonrpc: "2.0", id: 7, method: "session/list", params: {} }, { "Acp-Connection-Id": connectionId })).status).toBe(404);

    // From an address of its own: wrangler dev keeps the CF-Connecting-IP a client sends (on Cloudflare the edge sets it),
    // so other files' failed authentications on the shared server do not count against this limit, nor these against theirs.
    const statuses: number[] = [];
    for (let i = 0; i < 25 && !statuses.includes(429); i++) {
      const headers = { Authorization: "Bearer wrong", "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.1" };
      const res = await fetch(`${e2e.server.url}/acp`, { method: "POST", headers, body: JSON.stringify(INIT) });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses[0]).toBe(401);
    expect(statuses).toContain(429);
  });

  it("resumes a session stream from Last-Event-ID after more than its 512 buffered events, each missed update once and in order", async () => {
    // Enough to overflow the 512-event buffer with room to spare, and few enough to stay quick under load.
    const tokens = 700;
    e2e.mock.setScript("http-gap", [{ tokens }]);
    const { sessionId, sse, prompt } = await within("the raw session", 60_000, rawSession());
    const firstStream = await within("the first GET's headers", 30_000, sse());
    expect((await within("the prompt's 202", 30_000, prompt(3, "long [[mock:http-gap]]"))).status).toBe(202);
    const early = await readEvents(firstStream, (ev) => ev.some(isChunk), 30_000);
    const lastId = early.at(-1)!.id;
    const lastSeq = early.at(-1)!.data.params._meta.hermes.seq as number;
    expect(lastId).toBe(String(lastSeq));
    // The stream is gone while the rest of the turn runs: far more than the buffer holds.
    await turnsDone(sessionId, 1, 60_000);
    const resumed = await within("the resumed GET's headers", 30_000, sse(lastId));
    expect(resumed.status).toBe(200);
    const rest = await readEvents(resumed, (ev) => ev.some((e) => e.data.id === 3), 60_000);
    expect(rest.find((e) => e.data.id === 3)?.data.result.stopReason).toBe("end_turn");
    const seqs = seqsOf(rest);
    expect(seqs.length).toBeGreaterThan(512);
    expect(seqs[0]).toBe(lastSeq + 1);
    // Every logged frame after the id, exactly once and in order, with ids that are its seq.
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => lastSeq + 1 + i));
    expect(rest.filter((e) => e.data.params?._meta?.hermes?.seq !== undefined).every((e) => e.id === String(e.data.params._meta.hermes.seq))).toBe(true);
    expect(tokenNumbers([...early, ...rest])).toEqual(Array.from({ length: tokens }, (_, i) => i));
  }, 240_000);

  it("refuses a Last-Event-ID it never sent (400), and one for a session the connection has not attached (409)", async () => {
    const { connectionId, sessionId, sse } = await rawSession();
    const bogus = await sse("bogus");
    expect(bogus.status).toBe(400);
    expect(((await bogus.json()) as any).error.message).toContain("Last-Event-ID is not an event id of this service");
    const onConnection = await fetch(`${e2e.server.url}/acp`, {
      headers: { Authorization: `Bearer ${TOKEN}`, Accept: "text/event-stream", "Acp-Connection-Id": connectionId, "Last-Event-ID": "1e3" },
    });
    expect(onConnection.status).toBe(400);
    await onConnection.body?.cancel();
    const other = await fetch(`${e2e.server.url}/acp`, {
      headers: { Authorization: `Bearer ${TOKEN}`, Accept: "text/event-stream", "Acp-Connection-Id": connectionId, "Acp-Session-Id": "sess-not-attached", "Last-Event-ID": "4" },
    });
    expect(other.status).toBe(409);
    await other.body?.cancel();
    // A good id on the session's own stream still opens it.
    const fine = await sse("1");
    expect(fine.status).toBe(200);
    await fine.body?.cancel();
    expect(sessionId).toBeTruthy();
  });

  // Last in the file: it restarts wrangler dev (the same persist dir; state is kept, memory is not).
  it("resumes a session stream from Last-Event-ID after wrangler dev restarted, from the update log, and the stream goes on", async () => {
    e2e.mock.setScript("http-restart", [{ tokens: 60 }, { chunks: ["after ", "the ", "restart"] }]);
    const { sessionId, sse, prompt } = await rawSession();
    const firstStream = await sse();
    expect((await prompt(3, "before [[mock:http-restart]]")).status).toBe(202);
    const early = await readEvents(firstStream, (ev) => ev.some(isChunk));
    const lastSeq = early.at(-1)!.data.params._meta.hermes.seq as number;
    await turnsDone(sessionId, 1);
    await e2e.server.restart();
    const resumed = await sse(early.at(-1)!.id);
    expect(resumed.status).toBe(200);
    // A new prompt while the stream catches up: its frames follow the replay, none twice.
    expect((await prompt(4, "again [[mock:http-restart]]")).status).toBe(202);
    const rest = await readEvents(resumed, (ev) => ev.some((e) => e.data.id === 4), 120_000);
    expect(rest.find((e) => e.data.id === 4)?.data.result.stopReason).toBe("end_turn");
    const seqs = seqsOf(rest);
    expect(seqs[0]).toBe(lastSeq + 1);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(tokenNumbers([...early, ...rest])).toEqual(Array.from({ length: 60 }, (_, i) => i));
    const after = rest.filter(isChunk).map((e) => e.data.params.update.content.text).join("");
    expect(after.endsWith("after the restart")).toBe(true);
  }, 240_000);
});
