/**
 * A stand-in for the hermes-edge service, faithful to the contract the proxy
 * relies on: bearer-token check before the upgrade (401), `Acp-Connection-Id`
 * on the 101, `initialize` first, session turns owned by the session (not the
 * connection), `_meta.hermes.seq` on every update, `_hermes/turn_ended` to
 * every attached connection that asked for it at `initialize`
 * (`clientCapabilities._meta.hermes.turnEnded`), replay after `_meta.hermes.afterSeq` on
 * `session/resume`/`session/load`, and `_meta.hermes.turn` (state,
 * lastStopReason, lastRequestId, lastConnectionId) in their results.
 * Tests steer it: drop sockets mid-turn, lose prompt frames, refuse tokens,
 * stop and restart.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { wantsTurnEnded } from "@hermes-edge/protocol";
import { WebSocketServer, type WebSocket } from "ws";

export interface TurnScript {
  /** Number of `agent_message_chunk` updates per turn. */
  updates: number;
  /** Delay before each update, ms. */
  intervalMs: number;
  /** Terminate every socket right after this update (1-based) was emitted. */
  cutAfter?: number;
  /** Ask the prompting client for permission before the first update. */
  askPermission?: boolean;
  stopReason: string;
}

type Json = Record<string, unknown>;
type Logged = { seq: number; frame: Json };

interface Session {
  id: string;
  cwd: string;
  seq: number;
  log: Logged[];
  attached: Set<WebSocket>;
  /** Requests to the client still unanswered: sent again to a connection that re-attaches, as the real service does. */
  asked: Map<string, { frame: Json; resolve: (answer: Json) => void }>;
  turn: { state: "idle" | "running"; lastStopReason?: string; lastRequestId?: string | number; lastConnectionId?: string; cancelled?: boolean };
}

export interface Received {
  readonly connectionId: string;
  readonly message: Json;
}

export class FakeService {
  readonly tokens = new Set<string>(["good-token"]);
  /** How a refused token is answered before the upgrade (the service says 401; an access proxy in front may say 403). */
  refusalStatus: 401 | 403 = 401;
  /** The body of a 401 (the real service names the reason, e.g. "key revoked"). */
  refusalBody = "unauthorized";
  turn: TurnScript = { updates: 3, intervalMs: 5, stopReason: "end_turn" };
  /** The ACP version the fake claims in `initialize`. */
  protocolVersion = 1;
  /** Replay the whole log on resume/load, ignoring afterSeq (at-least-once delivery). */
  replayEverything = false;
  /**
   * How many of the next `session/prompt` frames are lost: each one cuts every
   * socket instead of being processed, as if the frame died with the connection.
   */
  losePrompts = 0;
  /** Replay nothing on resume/load (a lost log tail): only `_meta.hermes.turn` tells how a turn ended. */
  replayNothing = false;
  /** Per session id: the delay before a `session/resume`/`session/load` attaches and is answered, ms. */
  readonly resumeDelays = new Map<string, number>();
  /** Frames over this many bytes are refused unread with an `id: null` error, as HERMES_MAX_FRAME_BYTES does. */
  maxFrameBytes: number | undefined;
  /** Every frame the service received, in order. */
  readonly received: Received[] = [];
  /** Close codes of client-initiated closes. */
  readonly closeCodes: number[] = [];
  /** Headers of every accepted upgrade request. */
  readonly upgradeHeaders: IncomingMessage["headers"][] = [];
  readonly sessions = new Map<string, Session>();
  #server: Server | undefined;
  #wss = new WebSocketServer({ noServer: true });
  #sockets = new Map<WebSocket, { id: string; initialized: boolean; turnEnded: boolean }>();
  #nextConnection = 1;
  #nextSession = 1;
  #port = 0;

  static async start(): Promise<FakeService> {
    const service = new FakeService();
    await service.listen(0);
    return service;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.#port}/acp`;
  }

  get connectionCount(): number {
    return this.#sockets.size;
  }

  /** Starts listening (again) — on the previous port after {@link stop}. */
  async listen(port = this.#port): Promise<void> {
    const server = createServer((req, res) => {
      if (req.url === "/health") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: true, name: "hermes-edge", version: "0.0.0-fake" }));
        return;
      }
      res.writeHead(404).end("not found");
    });
    server.on("upgrade", (req, socket, head) => this.#upgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
  }

  /** Stops accepting and drops every socket (a crash or a deploy). */
  async stop(): Promise<void> {
    this.dropConnections();
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Cuts every WebSocket without a close frame, as a network failure would. */
  dropConnections(): void {
    for (const socket of this.#sockets.keys()) socket.terminate();
  }

  receivedMethods(method: string): Received[] {
    return this.received.filter((r) => r.message["method"] === method);
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/acp") {
      socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found");
      return;
    }
    const auth = req.headers.authorization ?? "";
    const token = auth.startsWith("Bearer ") ? auth.slice(7) : undefined;
    if (token === undefined || !this.tokens.has(token)) {
      const [status, body] = this.refusalStatus === 403 ? ["403 Forbidden", "forbidden"] : ["401 Unauthorized", this.refusalBody];
      socket.end(`HTTP/1.1 ${status}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    this.upgradeHeaders.push(req.headers);
    const id = `conn-${this.#nextConnection++}`;
    this.#wss.once("headers", (headers) => headers.push(`Acp-Connection-Id: ${id}`));
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#sockets.set(ws, { id, initialized: false, turnEnded: false });
      ws.on("message", (data: Buffer) => {
        const frameBytes = data.byteLength;
        const limitBytes = this.maxFrameBytes;
        if (limitBytes !== undefined && frameBytes > limitBytes) {
          send(ws, { jsonrpc: "2.0", id: null, error: { code: -32600, message: `Frame of ${frameBytes} bytes exceeds the ${limitBytes}-byte limit`, data: { limitBytes, frameBytes } } });
          return;
        }
        this.#onMessage(ws, JSON.parse(data.toString()) as Json);
      });
      ws.on("close", (code) => {
        this.closeCodes.push(code);
        this.#sockets.delete(ws);
        for (const session of this.sessions.values()) session.attached.delete(ws);
      });
    });
  }

  #onMessage(ws: WebSocket, message: Json): void {
    const state = this.#sockets.get(ws);
    if (!state) return;
    this.received.push({ connectionId: state.id, message });
    const { id, method } = message;
    const params = (message["params"] ?? {}) as Json;
    if (typeof method !== "string") return this.#answered(ws, message); // or a response to our own request, handled by its waiter
    if (id === undefined) {
      if (method === "session/cancel") {
        const session = this.sessions.get(String(params["sessionId"]));
        if (session && session.turn.state === "running") session.turn.cancelled = true;
      }
      return;
    }
    const reply = (body: Json): void => send(ws, { jsonrpc: "2.0", id, ...body });
    if (!state.initialized && method !== "initialize") {
      reply({ error: { code: -32600, message: "initialize must be the first request" } });
      return;
    }
    switch (method) {
      case "initialize":
        state.initialized = true;
        state.turnEnded = wantsTurnEnded((params["clientCapabilities"] as Json | undefined) ?? {});
        reply({
          result: {
            protocolVersion: this.protocolVersion,
            agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
            agentInfo: { name: "hermes-edge", version: "0.0.0-fake" },
            authMethods: [],
          },
        });
        return;
      case "session/new": {
        const session: Session = { id: `sess-${this.#nextSession++}`, cwd: String(params["cwd"]), seq: 0, log: [], attached: new Set([ws]), asked: new Map(), turn: { state: "idle" } };
        this.sessions.set(session.id, session);
        reply({ result: { sessionId: session.id } });
        return;
      }
      case "session/resume":
      case "session/load": {
        const session = this.sessions.get(String(params["sessionId"]));
        if (!session) {
          reply({ error: { code: -32002, message: `Resource not found: ${String(params["sessionId"])}` } });
          return;
        }
        const afterSeq = ((params["_meta"] as Json | undefined)?.["hermes"] as Json | undefined)?.["afterSeq"];
        const after = this.replayEverything ? 0 : typeof afterSeq === "number" ? afterSeq : method === "session/load" ? 0 : session.seq;
        const attach = (): void => {
          session.attached.add(ws);
          if (!this.replayNothing) for (const entry of session.log) if (entry.seq > after && this.#wants(ws, entry.frame)) send(ws, entry.frame);
          const { state: turnState, lastStopReason, lastRequestId, lastConnectionId } = session.turn;
          reply({ result: { _meta: { hermes: { turn: { state: turnState, lastStopReason, lastRequestId, lastConnectionId } } } } });
          for (const { frame } of session.asked.values()) send(ws, frame);
        };
        const delay = this.resumeDelays.get(session.id) ?? 0;
        if (delay > 0) setTimeout(attach, delay);
        else attach();
        return;
      }
      case "session/prompt": {
        if (this.losePrompts > 0) {
          this.losePrompts -= 1;
          this.dropConnections();
          return;
        }
        const session = this.sessions.get(String(params["sessionId"]));
        if (!session) {
          reply({ error: { code: -32002, message: "Resource not found" } });
          return;
        }
        void this.#runTurn(session, ws, id as string | number, state.id);
        return;
      }
      case "_test/echo":
        reply({ result: { echo: params } });
        return;
      default:
        reply({ error: { code: -32601, message: `Method not found: ${method}` } });
    }
  }

  async #runTurn(session: Session, ws: WebSocket, requestId: string | number, connectionId: string): Promise<void> {
    const script = { ...this.turn };
    session.turn = { ...session.turn, state: "running" };
    let outcome = "";
    if (script.askPermission) outcome = await this.#askPermission(ws, session.id);
    for (let i = 1; i <= script.updates && !session.turn.cancelled; i++) {
      await sleep(script.intervalMs);
      this.#emit(session, {
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId: session.id, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${i}${outcome}` } } },
      });
      if (script.cutAfter === i) this.dropConnections();
    }
    const stopReason = session.turn.cancelled ? "cancelled" : script.stopReason;
    session.turn = { state: "idle", lastStopReason: stopReason, lastRequestId: requestId, lastConnectionId: connectionId };
    this.#emit(session, {
      jsonrpc: "2.0",
      method: "_hermes/turn_ended",
      params: { sessionId: session.id, stopReason, _meta: { hermes: { requestId, connectionId } } },
    });
    if (ws.readyState === ws.OPEN) send(ws, { jsonrpc: "2.0", id: requestId, result: { stopReason } });
  }

  /** Logs a frame with the next seq and delivers it to every attached socket. */
  #emit(session: Session, frame: Json): void {
    const seq = ++session.seq;
    const params = frame["params"] as Json;
    if (frame["method"] === "session/update") params["_meta"] = { hermes: { seq } };
    else params["seq"] = seq;
    session.log.push({ seq, frame });
    for (const socket of session.attached) if (socket.readyState === socket.OPEN && this.#wants(socket, frame)) send(socket, frame);
  }

  /** `_hermes/turn_ended` goes only to connections that asked for it. */
  #wants(ws: WebSocket, frame: Json): boolean {
    return frame["method"] !== "_hermes/turn_ended" || this.#sockets.get(ws)?.turnEnded === true;
  }

  /** Sends a notification to the client on every open socket. */
  notifyClient(method: string, params: Json): void {
    for (const ws of this.#sockets.keys()) send(ws, { jsonrpc: "2.0", method, params });
  }

  /** Sends a request to the client on every open socket; resolves with the first response to it. */
  requestClient(id: string, method: string, params: Json): Promise<Json> {
    return new Promise((resolve) => {
      for (const ws of this.#sockets.keys()) {
        const onMessage = (data: Buffer): void => {
          const message = JSON.parse(data.toString()) as Json;
          if (message["id"] !== id || "method" in message) return;
          ws.off("message", onMessage);
          resolve(message);
        };
        ws.on("message", onMessage);
        send(ws, { jsonrpc: "2.0", id, method, params });
      }
    });
  }

  /**
   * Sends a request to the session's client (every attached socket) and
   * resolves with its answer. Until answered, a connection that re-attaches
   * gets it again under the same id; an answer from a socket not attached to
   * the session is ignored, as the real service ignores it.
   */
  askSession(sessionId: string, id: string, method: string, params: Json): Promise<Json> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const frame = { jsonrpc: "2.0", id, method, params };
    return new Promise((resolve) => {
      session.asked.set(id, { frame, resolve });
      for (const ws of session.attached) send(ws, frame);
    });
  }

  /** Answers ignored because their connection was not attached to the session (yet). */
  readonly ignoredAnswers: Json[] = [];

  #answered(ws: WebSocket, message: Json): void {
    for (const session of this.sessions.values()) {
      const asked = session.asked.get(String(message["id"]));
      if (!asked) continue;
      if (!session.attached.has(ws)) return void this.ignoredAnswers.push(message);
      session.asked.delete(String(message["id"]));
      asked.resolve(message);
    }
  }

  #askPermission(ws: WebSocket, sessionId: string): Promise<string> {
    const id = `perm-${sessionId}`;
    return new Promise((resolve) => {
      const onMessage = (data: Buffer): void => {
        const message = JSON.parse(data.toString()) as Json;
        if (message["id"] !== id || "method" in message) return;
        ws.off("message", onMessage);
        const outcome = ((message["result"] as Json | undefined)?.["outcome"] as Json | undefined)?.["optionId"];
        resolve(` (permission: ${String(outcome)})`);
      };
      ws.on("message", onMessage);
      send(ws, {
        jsonrpc: "2.0",
        id,
        method: "session/request_permission",
        params: { sessionId, toolCall: { toolCallId: "t1", title: "write file" }, options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }] },
      });
    });
  }
}

function send(ws: WebSocket, frame: Json): void {
  ws.send(JSON.stringify(frame));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
