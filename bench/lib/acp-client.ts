/**
 * A bare JSON-RPC client for benchmarks, over a raw `ws` socket or over the
 * stdio of a spawned `hermes-edge-proxy`. Every incoming frame is stamped with
 * `performance.now()` before it is parsed, and every request records when it
 * was handed to the socket (or the pipe), so latencies are measured with as
 * little client code in the way as possible. No schema checks, no SDK.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { REPO_ROOT } from "./machine.js";

export interface Incoming {
  /** `performance.now()` when the frame (or the stdout chunk holding it) arrived. */
  at: number;
  msg: any;
  bytes: number;
}

export interface Reply<T = any> {
  result?: T;
  error?: { code: number; message: string; data?: unknown };
  /** `performance.now()` just before the request was written. */
  sentAt: number;
  /** `performance.now()` when the response arrived. */
  at: number;
}

/** Everything one session received on this client, in arrival order. */
export interface SessionTrack {
  frames: Incoming[];
  /** Called for each new frame of the session (after it is stored). */
  listener?: (frame: Incoming) => void;
}

interface Pending {
  resolve(reply: Reply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  sentAt: number;
  method: string;
}

export abstract class AcpClient {
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #sessions = new Map<string, SessionTrack>();
  #closed = false;
  /** Frames that are neither responses nor about a session. */
  readonly other: Incoming[] = [];
  framesReceived = 0;
  bytesReceived = 0;
  /** Answers the agent's requests (fs, terminal, permission) when set; otherwise they get -32601. */
  answerAgent: ((method: string, params: any) => Promise<unknown>) | undefined;

  abstract readonly kind: "ws" | "proxy";
  protected abstract write(text: string): void;
  abstract close(): Promise<void>;

  /** The frames of `sessionId` so far (created on first use, so nothing that arrives early is lost). */
  session(sessionId: string): SessionTrack {
    let track = this.#sessions.get(sessionId);
    if (!track) {
      track = { frames: [] };
      this.#sessions.set(sessionId, track);
    }
    return track;
  }

  forgetSession(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  request<T = any>(method: string, params: unknown, timeoutMs = 30_000): Promise<Reply<T>> {
    if (this.#closed) return Promise.reject(new Error(`${method}: client closed`));
    const id = this.#nextId++;
    const text = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    return new Promise<Reply<T>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method} (id ${id}) got no response within ${timeoutMs} ms`));
      }, timeoutMs);
      const sentAt = performance.now();
      this.#pending.set(id, { resolve, reject, timer, sentAt, method });
      this.write(text);
    });
  }

  notify(method: string, params: unknown): void {
    this.write(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  /** Like `request`, but throws on a JSON-RPC error. */
  async call<T = any>(method: string, params: unknown, timeoutMs?: number): Promise<Reply<T> & { result: T }> {
    const reply = await this.request<T>(method, params, timeoutMs);
    if (reply.error) throw new Error(`${method} failed: ${reply.error.code} ${reply.error.message}`);
    return reply as Reply<T> & { result: T };
  }

  protected receive(at: number, text: string): void {
    this.framesReceived += 1;
    this.bytesReceived += text.length;
    const msg = JSON.parse(text);
    const frame: Incoming = { at, msg, bytes: text.length };
    if (msg.method === undefined && typeof msg.id === "number") {
      const pending = this.#pending.get(msg.id);
      if (pending) {
        this.#pending.delete(msg.id);
        clearTimeout(pending.timer);
        pending.resolve({ result: msg.result, error: msg.error, sentAt: pending.sentAt, at });
        return;
      }
    }
    const sessionId = msg.params?.sessionId;
    if ((msg.method === "session/update" || msg.method === "_hermes/turn_ended") && typeof sessionId === "string") {
      const track = this.session(sessionId);
      track.frames.push(frame);
      track.listener?.(frame);
      return;
    }
    if (msg.method !== undefined && msg.id !== undefined && this.answerAgent) {
      const reply = (body: object) => !this.#closed && this.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...body }));
      this.answerAgent(msg.method, msg.params).then(
        (result) => reply({ result }),
        (err: unknown) => reply({ error: { code: -32603, message: String(err) } }),
      );
    } else if (msg.method !== undefined && msg.id !== undefined) {
      // A request from the agent (permission, fs, terminal) that this benchmark does not expect.
      this.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "bench client: not supported" } }));
    }
    this.other.push(frame);
  }

  protected failAll(reason: string): void {
    this.#closed = true;
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error(`${pending.method} (id ${id}): ${reason}`));
    }
    this.#pending.clear();
  }
}

/** A raw `ws` client on `ws://127.0.0.1:PORT/acp`. */
export class WsAcpClient extends AcpClient {
  readonly kind = "ws" as const;

  private constructor(private readonly socket: WebSocket) {
    super();
    socket.on("message", (data: Buffer) => this.receive(performance.now(), data.toString("utf8")));
    socket.on("close", () => this.failAll("the WebSocket closed"));
  }

  static open(url: string, token: string | undefined, timeoutMs = 15_000): Promise<WsAcpClient> {
    const socket = new WebSocket(url, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
      perMessageDeflate: false,
      handshakeTimeout: timeoutMs,
      maxPayload: 64 * 1024 * 1024,
    });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new WsAcpClient(socket)));
      socket.once("error", reject);
      socket.once("unexpected-response", (_req, res) => reject(new Error(`WebSocket upgrade answered HTTP ${res.statusCode}`)));
    });
  }

  protected write(text: string): void {
    this.socket.send(text);
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => this.socket.once("close", () => resolve()));
    this.socket.close(1000);
    const timer = setTimeout(() => this.socket.terminate(), 2_000);
    await closed;
    clearTimeout(timer);
  }
}

export const PROXY_CLI = join(REPO_ROOT, "proxy/dist/cli.js");

/** `node proxy/dist/cli.js --url URL` with the token in its environment; ndjson over its stdio. */
export class ProxyAcpClient extends AcpClient {
  readonly kind = "proxy" as const;
  #buffer = "";
  #stderrTail = "";
  readonly #exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    private readonly configDir: string,
  ) {
    super();
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      const at = performance.now();
      this.#buffer += chunk;
      let newline = this.#buffer.indexOf("\n");
      while (newline !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        if (line.trim()) this.receive(at, line);
        newline = this.#buffer.indexOf("\n");
      }
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => (this.#stderrTail = (this.#stderrTail + chunk).slice(-4_000)));
    this.#exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    void this.#exited.then((code) => this.failAll(`the proxy exited (${code}); stderr: ${this.#stderrTail.trim()}`));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get stderr(): string {
    return this.#stderrTail;
  }

  static spawn(url: string, token: string, extraArgs: string[] = []): ProxyAcpClient {
    if (!existsSync(PROXY_CLI)) {
      throw new Error(`${PROXY_CLI} is missing: build the proxy first (npm run build -w hermes-edge-proxy, or npm ci)`);
    }
    // An empty config dir: a developer's saved proxy config must not change the run.
    const configDir = mkdtempSync(join(tmpdir(), "hermes-bench-proxy-"));
    const child = spawn(process.execPath, [PROXY_CLI, "--url", url, "--log-level", "error", ...extraArgs], {
      cwd: REPO_ROOT,
      env: { ...process.env, HERMES_EDGE_TOKEN: token, XDG_CONFIG_HOME: configDir, HERMES_EDGE_URL: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    return new ProxyAcpClient(child, configDir);
  }

  protected write(text: string): void {
    this.child.stdin!.write(text + "\n");
  }

  /** Ends stdin (the proxy then closes its socket and exits 0); SIGKILL after 5 s. */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin!.end();
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
      await this.#exited;
      clearTimeout(timer);
    }
    rmSync(this.configDir, { recursive: true, force: true });
  }
}

/** Resident set size of a process in bytes (Linux /proc), or undefined if it is gone. */
export async function rssOf(pid: number): Promise<number | undefined> {
  const { readFile } = await import("node:fs/promises");
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
