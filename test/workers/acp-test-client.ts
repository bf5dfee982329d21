/**
 * A small ACP client for tests inside workerd: opens `/acp` through the Worker,
 * records every frame, answers agent→client requests with registered handlers.
 */
import { env, SELF } from "cloudflare:test";
import { framesTakenIn, takenInAfter } from "./frames-taken-in.js";

export type Frame = Record<string, any>;

export interface OpenOptions {
  token?: string | null;
  protocols?: string[];
  headers?: Record<string, string>;
}

export class TestClient {
  readonly frames: Frame[] = [];
  readonly raw: string[] = [];
  #nextId = 1;
  #waiters: { predicate: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  #handlers = new Map<string, (params: any) => unknown>();
  /** Frames go out one at a time, each once the connection object has the one before (see frames-taken-in.ts). */
  #outgoing: Promise<void> = Promise.resolve();
  #queued = 0;
  closed: { code: number; reason: string } | null = null;

  constructor(
    readonly ws: WebSocket,
    readonly response: Response,
  ) {
    ws.addEventListener("message", (event) => {
      const text = typeof event.data === "string" ? event.data : "";
      this.raw.push(text);
      const frame = JSON.parse(text) as Frame;
      this.frames.push(frame);
      if (frame.method && frame.id !== undefined) void this.#answer(frame);
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.predicate(frame)) return true;
        w.resolve(frame);
        return false;
      });
    });
    ws.addEventListener("close", (event) => {
      this.closed = { code: event.code, reason: event.reason };
    });
  }

  static async open(options: OpenOptions = {}): Promise<TestClient> {
    const res = await upgrade(options);
    if (res.status !== 101 || !res.webSocket) throw new Error(`upgrade failed: ${res.status} ${await res.text()}`);
    res.webSocket.accept();
    return new TestClient(res.webSocket, res);
  }

  /**
   * Opens and initializes. Like the proxy, it asks for `_hermes/turn_ended`
   * unless the capabilities given say otherwise (`_meta: {}` for a generic client).
   */
  static async ready(options: OpenOptions = {}, clientCapabilities: Frame = {}): Promise<TestClient> {
    const client = await TestClient.open(options);
    const caps = { _meta: { hermes: { turnEnded: true } }, ...clientCapabilities };
    const init = await client.request("initialize", { protocolVersion: 1, clientCapabilities: caps });
    if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    return client;
  }

  onRequest(method: string, handler: (params: any) => unknown): void {
    this.#handlers.set(method, handler);
  }

  /**
   * Sends at once, or after every frame sent before it has reached the connection object, as a
   * deployed Worker takes them. Strings and bytes go as they are (text and binary frames); anything else as JSON.
   */
  send(frame: unknown): void {
    const data = typeof frame === "string" || ArrayBuffer.isView(frame) || frame instanceof ArrayBuffer ? frame : JSON.stringify(frame);
    const sendNow = () => {
      const before = framesTakenIn(this.connectionId);
      this.ws.send(data);
      return before;
    };
    const takenIn = (before: number) =>
      this.connectionId ? takenInAfter(this.connectionId, before, () => this.closed !== null, TAKEN_IN_TIMEOUT_MS) : undefined;
    if (this.#queued === 0) {
      const before = sendNow();
      this.#then(() => takenIn(before));
    } else {
      this.#then(() => takenIn(sendNow()));
    }
  }

  #then(step: () => void | Promise<void>): void {
    this.#queued++;
    this.#outgoing = this.#outgoing
      .then(step)
      .catch((err) => console.warn("test client: a frame could not be sent", err))
      .finally(() => this.#queued--);
  }

  /** Sends a request and resolves with the whole response frame. */
  request(method: string, params?: unknown, timeoutMs = 15_000): Promise<Frame> {
    return this.start(method, params, timeoutMs).response;
  }

  /** Sends a request without waiting: its id, and a promise of its response frame. */
  start(method: string, params?: unknown, timeoutMs = 15_000): { id: number; response: Promise<Frame> } {
    const id = this.#nextId++;
    const response = this.next((f) => f.id === id && !f.method, timeoutMs);
    // A rejected response nobody awaited yet must not fail the test run on its own.
    response.catch(() => undefined);
    this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return { id, response };
  }

  /** Sends `session/prompt` (a string becomes one text block) without waiting for its answer. */
  prompt(sessionId: string, prompt: string | Frame[], timeoutMs = 15_000): { id: number; response: Promise<Frame> } {
    const blocks = typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
    return this.start("session/prompt", { sessionId, prompt: blocks }, timeoutMs);
  }

  /** The `Acp-Connection-Id` the service gave this connection. */
  get connectionId(): string {
    return this.response.headers.get("Acp-Connection-Id") ?? "";
  }

  /** `_hermes/turn_ended` notifications received for a session. */
  turnsEnded(sessionId?: string): Frame[] {
    return this.frames.filter((f) => f.method === "_hermes/turn_ended" && (!sessionId || f.params.sessionId === sessionId));
  }

  /** The next `_hermes/turn_ended` for a session, looking from frame `fromIndex` on. */
  turnEnded(sessionId: string, fromIndex = 0, timeoutMs = 15_000): Promise<Frame> {
    return this.next((f) => f.method === "_hermes/turn_ended" && f.params.sessionId === sessionId, timeoutMs, fromIndex);
  }

  /** Every logged frame (updates and turn ends) received for a session, in arrival order. */
  logged(sessionId: string): Frame[] {
    return this.frames.filter(
      (f) =>
        ((f.method === "session/update" && f.params._meta?.hermes?.seq !== undefined) || f.method === "_hermes/turn_ended") &&
        f.params.sessionId === sessionId,
    );
  }

  /** The exact text of a received frame. */
  rawOf(frame: Frame): string {
    const i = this.frames.indexOf(frame);
    if (i < 0) throw new Error("frame was not received by this client");
    return this.raw[i]!;
  }

  /** Like `request` but returns `result`, throwing on an error response. */
  async call(method: string, params?: unknown, timeoutMs?: number): Promise<any> {
    const res = await this.request(method, params, timeoutMs);
    if (res.error) throw new Error(`${method} failed: ${JSON.stringify(res.error)}`);
    return res.result;
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** The next frame (received from now on, or already received if `fromIndex` given) matching `predicate`. */
  next(predicate: (f: Frame) => boolean, timeoutMs = 15_000, fromIndex?: number): Promise<Frame> {
    if (fromIndex !== undefined) {
      const found = this.frames.slice(fromIndex).find(predicate);
      if (found) return Promise.resolve(found);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a frame; got ${this.raw.slice(-5).join("\n")}`)), timeoutMs);
      this.#waiters.push({
        predicate,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      });
    });
  }

  updates(sessionId?: string): Frame[] {
    return this.frames.filter((f) => f.method === "session/update" && (!sessionId || f.params.sessionId === sessionId));
  }

  /** Concatenated `agent_message_chunk` text for a session. */
  agentText(sessionId: string): string {
    return this.updates(sessionId)
      .filter((f) => f.params.update.sessionUpdate === "agent_message_chunk")
      .map((f) => f.params.update.content.text)
      .join("");
  }

  async newSession(cwd = "/work/project"): Promise<string> {
    const result = await this.call("session/new", { cwd, mcpServers: [] });
    return result.sessionId as string;
  }

  /** Closes once the frames sent before have gone out (at once when none wait). */
  close(): void {
    const close = () => {
      try {
        this.ws.close(1000, "test done");
      } catch {
        // already closed
      }
    };
    if (this.#queued === 0) close();
    else this.#then(close);
  }

  async #answer(frame: Frame): Promise<void> {
    const handler = this.#handlers.get(frame.method);
    if (!handler) {
      this.send({ jsonrpc: "2.0", id: frame.id, error: { code: -32601, message: "Method not found" } });
      return;
    }
    try {
      this.send({ jsonrpc: "2.0", id: frame.id, result: await handler(frame.params) });
    } catch (err) {
      this.send({ jsonrpc: "2.0", id: frame.id, error: { code: -32603, message: String(err) } });
    }
  }
}

/** How long a frame may take to reach the connection object before the next one goes anyway. */
const TAKEN_IN_TIMEOUT_MS = 5_000;

/**
 * A fresh client address: failed authentications are rate-limited per address
 * (CF-Connecting-IP), and the limiter's memory is shared by every test file.
 */
export function freshAddress(): string {
  const [a, b, c] = crypto.getRandomValues(new Uint8Array(3));
  return `10.${a}.${b}.${c}`;
}

export function upgrade(options: OpenOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Upgrade: "websocket", "CF-Connecting-IP": freshAddress(), ...options.headers };
  const token = options.token === undefined ? "tok-alpha" : options.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (options.protocols) headers["Sec-WebSocket-Protocol"] = options.protocols.join(", ");
  return SELF.fetch("http://hermes.test/acp", { headers });
}

const mockUrl = env.MOCK_URL;

/** Registers a script on the mock model; put `[[mock:KEY]]` in a prompt to use it. */
export async function mockScript(key: string, steps: unknown[]): Promise<void> {
  const res = await fetch(`${mockUrl}/_mock/scripts`, { method: "POST", body: JSON.stringify({ key, steps }) });
  if (!res.ok) throw new Error(`mock script failed: ${res.status}`);
}

export async function mockCalls(key: string): Promise<any[]> {
  return (await fetch(`${mockUrl}/_mock/calls?key=${encodeURIComponent(key)}`)).json();
}

/** The log sequence number of a `session/update` (`_meta.hermes.seq`) or `_hermes/turn_ended` (`seq`). */
export function seqOf(frame: Frame): number {
  const seq = frame.method === "_hermes/turn_ended" ? frame.params.seq : frame.params?._meta?.hermes?.seq;
  if (typeof seq !== "number") throw new Error(`frame has no seq: ${JSON.stringify(frame)}`);
  return seq;
}

/** Session-state updates (commands, mode, config) as opposed to the conversation itself. */
export const STATE_UPDATES: ReadonlySet<string> = new Set(["available_commands_update", "current_mode_update", "config_option_update"]);

/** The conversation part of logged frames: everything but session-state updates. */
export function conversation(frames: Frame[]): Frame[] {
  return frames.filter((f) => !STATE_UPDATES.has(f.params?.update?.sessionUpdate));
}

/**
 * The turn state a load/resume result carries in `_meta.hermes.turn`, reduced to
 * the fields the reattach contract defines (later features may add others).
 */
export function turnOf(result: Frame): { state: string; lastStopReason?: string; interruptedPrompt?: string } {
  const turn = result?._meta?.hermes?.turn;
  if (!turn) throw new Error(`no _meta.hermes.turn in ${JSON.stringify(result)}`);
  const picked: { state: string; lastStopReason?: string; interruptedPrompt?: string } = { state: turn.state };
  if ("lastStopReason" in turn) picked.lastStopReason = turn.lastStopReason;
  if ("interruptedPrompt" in turn) picked.interruptedPrompt = turn.interruptedPrompt;
  return picked;
}

/** `[from, from+1, …, to]`. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

export function uniqueKey(prefix = "k"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
