/**
 * An OpenAI-compatible mock model server in plain Node (no dependencies), used
 * by the vitest config, end-to-end tests and benchmarks.
 *
 * - `POST /v1/chat/completions` (SSE when `stream: true`), `GET /v1/models`;
 *   both need `Authorization: Bearer <anything>` so tests can see a key is sent.
 * - A `[[mock:KEY]]` marker in any message selects a script; each call consumes
 *   its next step. Without a marker, or once a script is used up, the reply
 *   streams `Echo: <last user message>`.
 * - Control API for code that can only `fetch` (tests inside workerd):
 *   `POST /_mock/scripts {key, steps}` → 204, `GET /_mock/calls?key=KEY`,
 *   `POST /_mock/reset` → 204.
 *
 * Standalone: `npx tsx test/support/mock-openai.ts --port 8788`.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import {
  completionMessage,
  defaultStep,
  errorBody,
  findScriptKey,
  findScriptKeyIn,
  finishReasonOf,
  planDeltas,
  usageOf,
  type ChatRequestBody,
  type MockStep,
} from "./mock-openai-plan.js";

export type { ChatMessage, ChatRequestBody, MockStep, MockToolCall } from "./mock-openai-plan.js";

/**
 * One accepted chat completion request (after auth and validation).
 * `at`, `firstTokenAt` and `endAt` are `performance.now()` milliseconds of the
 * process running the mock: subtract them to get the mock's own time
 * (`firstTokenAt - at` includes any scripted delay). `atEpochMs` is `Date.now()`
 * at the same moment as `at`, for comparing with clocks of other processes.
 */
export interface RecordedCall {
  key: string | null;
  body: ChatRequestBody;
  headers: Record<string, string>;
  at: number;
  atEpochMs: number;
  /** When the first content, reasoning or tool-call chunk was written. */
  firstTokenAt?: number;
  /** When the response ended, or the socket was closed or dropped. */
  endAt?: number;
  /**
   * Only with `recordChunkTimes`: `performance.now()` right after each SSE
   * event was written, one entry per event in order (content, reasoning and
   * tool-call deltas, then the finish event; the usage event is not included).
   * For a `tokens` step without reasoning, entry `i` is token `i`.
   */
  chunkWrittenAt?: number[];
}

export interface MockOpenAI {
  /** e.g. `http://127.0.0.1:PORT`; the base URL for OpenAI clients is `url + "/v1"`. */
  url: string;
  /** Replace the script for `key` (its step counter starts again). */
  setScript(key: string, steps: MockStep[]): void;
  /** Recorded calls, oldest first; only those for `key` when given. */
  calls(key?: string): RecordedCall[];
  /** Forget all scripts and calls. */
  reset(): void;
  close(): Promise<void>;
}

export interface MockOpenAIOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Keep the Node process alive while listening. Default false, so a mock
   * started in vitest.config.ts and never closed cannot hold vitest open
   * ("close timed out"); in-flight requests still keep the process alive.
   */
  ref?: boolean;
  /**
   * Decode and parse a chat request's body when its `RecordedCall.body` is
   * first read, not as it arrives; the script marker, `stream`,
   * `include_usage` and the model are found in the raw bytes instead, and a
   * body that is not JSON fails only when read. For benchmarks on one
   * machine: decoding and parsing a 250 KB request as it arrived took this
   * process 2–3 ms, and that work showed in the measured Worker's own CPU time
   * and first token (BENCHMARKS.md, figure 8, session 21). Default false.
   */
  deferBodyParsing?: boolean;
}

interface Script {
  steps: MockStep[];
  next: number;
}

const MODELS = ["mock-model", "mock-model-large"];

class MockState {
  constructor(readonly deferBodyParsing: boolean) {}

  readonly scripts = new Map<string, Script>();
  readonly recorded: RecordedCall[] = [];
  private counter = 0;

  setScript(key: string, steps: MockStep[]): void {
    this.scripts.set(key, { steps, next: 0 });
  }

  /** The next step for `key`, or undefined once its script is used up. */
  takeStep(key: string | null): MockStep | undefined {
    const script = key === null ? undefined : this.scripts.get(key);
    if (!script || script.next >= script.steps.length) return undefined;
    return script.steps[script.next++];
  }

  nextId(): string {
    return `chatcmpl-mock-${++this.counter}`;
  }

  reset(): void {
    this.scripts.clear();
    this.recorded.length = 0;
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

function sendError(res: ServerResponse, status: number, message?: string): void {
  // 429 carries a tiny retry-after-ms so clients that do retry, retry at once.
  const headers: Record<string, string> = status === 429 ? { "retry-after-ms": "1" } : {};
  sendJson(res, status, errorBody(status, message), headers);
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = (await readBytes(req)).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

function isChatBody(value: unknown): value is ChatRequestBody {
  return typeof value === "object" && value !== null && Array.isArray((value as { messages?: unknown }).messages);
}

/** A chat request as the mock acts on it. */
interface ChatRequest {
  /** The body; with `deferBodyParsing`, decoded and parsed when first read. */
  readonly body: ChatRequestBody;
  key: string | null;
  model: string;
  stream: boolean;
  includeUsage: boolean;
}

function parsedRequest(body: ChatRequestBody): ChatRequest {
  return {
    body,
    key: findScriptKey(body.messages),
    model: body.model ?? MODELS[0]!,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
  };
}

/**
 * The same facts from the raw bytes, which are decoded only when the body is
 * read: at 250 KB, decoding them as each request arrives was most of what
 * the mock's work added to the figure (BENCHMARKS.md, figure 8, session 21).
 * A quote inside a JSON string is always escaped, so `"stream":true` in the
 * bytes is a key and its value; a marker is found wherever it is, not only in
 * a message's text.
 */
function deferredRequest(bytes: Buffer): ChatRequest {
  let body: ChatRequestBody | undefined;
  return {
    get body() {
      return (body ??= JSON.parse(bytes.toString("utf8")) as ChatRequestBody);
    },
    key: scriptKeyIn(bytes),
    model: stringAfter(bytes, '"model":"') ?? MODELS[0]!,
    stream: bytes.includes('"stream":true'),
    includeUsage: bytes.includes('"include_usage":true'),
  };
}

/** The first whole `[[mock:KEY]]` marker in `bytes`, decoding only around each `[[mock:`. */
function scriptKeyIn(bytes: Buffer): string | null {
  for (let at = bytes.indexOf("[[mock:"); at !== -1; at = bytes.indexOf("[[mock:", at + 1)) {
    const key = findScriptKeyIn(bytes.toString("utf8", at, at + 256));
    if (key !== null) return key;
  }
  return null;
}

/** The JSON string that follows the first `prefix` in `bytes`, when it has no escapes. */
function stringAfter(bytes: Buffer, prefix: string): string | undefined {
  const from = bytes.indexOf(prefix);
  if (from === -1) return undefined;
  const start = from + Buffer.byteLength(prefix);
  const end = bytes.indexOf('"', start);
  const value = end === -1 ? undefined : bytes.toString("utf8", start, end);
  return value === undefined || value.includes("\\") ? undefined : value;
}

function hasBearer(req: IncomingMessage): boolean {
  return /^Bearer\s+\S+/i.test(req.headers.authorization ?? "");
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

async function delay(ms: number | undefined): Promise<void> {
  // Skipping a zero wait keeps unscripted replies free of timer latency (benchmarks).
  if (ms && ms > 0) await sleep(ms);
}

/**
 * Waits until `performance.now()` reaches `due`. One timer is not enough: Node schedules it from the event
 * loop's cached clock, which can lag by most of a millisecond, so it may fire that much early.
 */
async function until(due: number): Promise<void> {
  for (let left = due - performance.now(); left > 0; left = due - performance.now()) await sleep(Math.ceil(left));
}

/** Writes a streamed reply; stops quietly if the client goes away. */
async function streamReply(res: ServerResponse, step: MockStep, call: RecordedCall, request: ChatRequest, id: string): Promise<void> {
  const created = Math.floor(Date.now() / 1000);
  const { model, includeUsage } = request;
  const chunk = (choices: unknown[], usage?: unknown) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...(includeUsage ? { usage: usage ?? null } : {}) })}\n\n`;

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  await delay(step.firstTokenDelayMs);

  const deltas = planDeltas(step);
  const events = deltas.map(({ delta }, i) =>
    chunk([{ index: 0, delta, logprobs: null, finish_reason: i === deltas.length - 1 ? finishReasonOf(step) : null }]),
  );
  if (includeUsage) events.push(chunk([], usageOf(step, request)));

  const written: number[] | undefined = step.recordChunkTimes ? [] : undefined;
  if (written) call.chunkWrittenAt = written;
  let pacedFrom = 0;
  for (const [i, event] of events.entries()) {
    if (res.destroyed) return;
    if (step.dropAfterChunks !== undefined && i >= step.dropAfterChunks) {
      res.destroy(); // a broken stream: no finish chunk, no [DONE]
      return;
    }
    if (step.chunkIntervalMs !== undefined) {
      if (i > 0) await until(pacedFrom + i * step.chunkIntervalMs);
    } else if (i > 0) await delay(step.chunkDelayMs);
    res.write(event);
    const now = performance.now();
    if (i === 0) pacedFrom = now; // the schedule counts from the first event's write
    if (written && i < deltas.length) written.push(now);
    if (call.firstTokenAt === undefined && deltas[i]?.isToken) call.firstTokenAt = now;
  }
  res.end("data: [DONE]\n\n");
}

async function completeReply(res: ServerResponse, step: MockStep, call: RecordedCall, request: ChatRequest, id: string): Promise<void> {
  await delay(step.firstTokenDelayMs);
  if (step.dropAfterChunks !== undefined) {
    res.destroy();
    return;
  }
  call.firstTokenAt = performance.now();
  sendJson(res, 200, {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [{ index: 0, message: completionMessage(step), logprobs: null, finish_reason: finishReasonOf(step) }],
    usage: usageOf(step, request),
  });
}

async function handleChat(state: MockState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const at = performance.now();
  const atEpochMs = Date.now();
  if (!hasBearer(req)) return sendError(res, 401, "Missing bearer token");
  let request: ChatRequest;
  if (state.deferBodyParsing) request = deferredRequest(await readBytes(req));
  else {
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return sendError(res, 400, "Body is not valid JSON");
    }
    if (!isChatBody(body)) return sendError(res, 400, "`messages` must be an array");
    request = parsedRequest(body);
  }

  const { key } = request;
  const call: RecordedCall = {
    key,
    get body() {
      return request.body;
    },
    headers: flatHeaders(req),
    at,
    atEpochMs,
  };
  state.recorded.push(call);
  res.on("close", () => (call.endAt = performance.now()));

  const step = state.takeStep(key) ?? defaultStep(request.body.messages);
  if (step.status !== undefined && (step.status < 200 || step.status >= 300)) {
    await delay(step.firstTokenDelayMs);
    return sendError(res, step.status, step.text);
  }
  const reply = request.stream ? streamReply : completeReply;
  await reply(res, step, call, request, state.nextId());
}

async function handleControl(state: MockState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (req.method === "POST" && url.pathname === "/_mock/scripts") {
    const body = (await readJson(req).catch(() => undefined)) as { key?: unknown; steps?: unknown } | undefined;
    if (typeof body?.key !== "string" || !Array.isArray(body.steps)) {
      return sendError(res, 400, "Expected {key: string, steps: MockStep[]}");
    }
    state.setScript(body.key, body.steps as MockStep[]);
    res.writeHead(204).end();
  } else if (req.method === "GET" && url.pathname === "/_mock/calls") {
    const key = url.searchParams.get("key");
    sendJson(res, 200, key === null ? state.recorded : state.recorded.filter((c) => c.key === key));
  } else if (req.method === "POST" && url.pathname === "/_mock/reset") {
    state.reset();
    res.writeHead(204).end();
  } else {
    sendError(res, 404, `No route ${req.method} ${url.pathname}`);
  }
}

async function route(state: MockState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://mock");
  if (url.pathname.startsWith("/_mock/")) return handleControl(state, req, res, url);
  if (req.method === "POST" && url.pathname === "/v1/chat/completions") return handleChat(state, req, res);
  if (req.method === "GET" && url.pathname === "/v1/models") {
    if (!hasBearer(req)) return sendError(res, 401, "Missing bearer token");
    const data = MODELS.map((id) => ({ id, object: "model", created: 0, owned_by: "mock" }));
    return sendJson(res, 200, { object: "list", data });
  }
  sendError(res, 404, `No route ${req.method} ${url.pathname}`);
}

/** Starts the mock on `host:port` (default 127.0.0.1, any free port). */
export async function startMockOpenAI(opts: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  const state = new MockState(opts.deferBodyParsing ?? false);
  const server = createServer((req, res) => {
    route(state, req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `Mock failure: ${String(error)}`);
      else res.destroy();
    });
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  if (!opts.ref) server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    setScript: (key, steps) => state.setScript(key, steps),
    calls: (key) => (key === undefined ? [...state.recorded] : state.recorded.filter((c) => c.key === key)),
    reset: () => state.reset(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets would hold close() open for seconds.
        server.closeAllConnections();
      }),
  };
}

function portFromArgs(argv: string[]): number | undefined {
  const i = argv.indexOf("--port");
  const value = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith("--port="))?.slice("--port=".length);
  return value === undefined ? undefined : Number(value);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const hostIndex = argv.indexOf("--host");
  const mock = await startMockOpenAI({ port: portFromArgs(argv), host: hostIndex >= 0 ? argv[hostIndex + 1] : undefined, ref: true });
  process.stderr.write(`mock-openai listening on ${mock.url} (base URL ${mock.url}/v1)\n`);
  const stop = () => void mock.close().finally(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`mock-openai: ${String(error)}\n`);
    process.exit(1);
  });
}
