/**
 * Runs the user's local ACP agents for the service and tunnels their stdio
 * over the proxy's connection as `_hermes/upstream/message`. A process starts
 * on first use, is restarted once if it dies, and is killed when the proxy
 * exits. While it is down, each request sent to it is answered with an error
 * that names the upstream and the cause, so the model call fails clearly.
 *
 * While the service's connection is down, what the agents say waits here and
 * goes out once the bridge has re-attached its sessions. The service sends
 * its unanswered requests again after a reconnect (one may have been lost
 * with the old socket); a request id already seen is not passed on twice.
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { notificationFrame, UPSTREAM_MESSAGE, withDeclaredUpstreams, zUpstreamMessage, type DeclaredUpstream, type IncomingRequest, requestFrame } from "@hermes-edge/protocol";
import { LineDecoder } from "./line-framing.js";
import type { Logger } from "./log.js";
import { SentBySize } from "./sent-by-size.js";
import { StderrTail } from "./stderr-tail.js";
import type { UpstreamCommands } from "./upstream-spec.js";

type Message = { jsonrpc: "2.0"; id?: unknown; method?: unknown; [key: string]: unknown };

/** Messages for the service held while it is unreachable; the oldest go first beyond this. */
export const OFFLINE_LIMIT = 1_000;
/** Answered request ids remembered per agent, so a request the service sends again is recognised. */
const ANSWERED_MEMORY = 256;

export class UpstreamHost {
  readonly #processes = new Map<string, HostedUpstream>();
  #send: ((text: string) => void) | undefined;
  readonly #offline: Held[] = [];
  /** The large messages sent lately, by frame size: a frame-limit error names only the size. */
  readonly #large = new SentBySize<Held>();

  constructor(
    commands: UpstreamCommands,
    private readonly log: Logger,
  ) {
    for (const [id, command] of Object.entries(commands)) {
      const upstream: HostedUpstream = new HostedUpstream(id, command, log, (message) => this.#toService(upstream, message));
      this.#processes.set(id, upstream);
    }
  }

  get declared(): DeclaredUpstream[] {
    return [...this.#processes.keys()].map((id) => ({ id, name: id }));
  }

  /** The bridge's connection is open and its sessions re-attached: held messages go out first. */
  online(send: (text: string) => void): void {
    this.#send = send;
    for (const held of this.#offline.splice(0)) this.#sendNow(held);
  }

  /** The connection dropped: messages wait until `online`. */
  offline(): void {
    this.#send = undefined;
  }

  #toService(upstream: HostedUpstream, message: Message): void {
    const text = notificationFrame(UPSTREAM_MESSAGE, { upstreamId: upstream.id, message });
    if (this.#send) return this.#sendNow({ text, upstream, message });
    if (this.#offline.length >= OFFLINE_LIMIT) {
      this.#offline.shift();
      this.log.warn(`more than ${OFFLINE_LIMIT} upstream messages waited for the service; dropped the oldest`);
    }
    this.#offline.push({ text, upstream, message });
  }

  #sendNow(held: Held): void {
    this.#large.sent(held);
    this.#send!(held.text);
  }

  /**
   * The service refused a frame of `frameBytes` as over its limit (its error
   * has id null). When that frame was an agent's message, the proxy settles
   * it here and returns true: an answer to the service's request becomes an
   * error answer naming the sizes, so the model call fails saying why; a
   * request of the agent's gets that error from the proxy; a notification is
   * logged as dropped.
   */
  refused(refusal: { frameBytes: number; limitBytes: number }): boolean {
    const held = this.#large.take(refusal.frameBytes);
    if (!held) return false;
    const { upstream, message } = held;
    const n = (x: number) => x.toLocaleString("en-US");
    const what = `a message of ${n(refusal.frameBytes)} bytes from the local upstream agent ${upstream.id}, over the service's ${n(refusal.limitBytes)}-byte frame limit (HERMES_MAX_FRAME_BYTES)`;
    this.log.warn(`the service refused ${what}`);
    if (typeof message.method === "string" && message.id !== undefined) upstream.refusedRequest(message.id, `hermes-edge-proxy could not pass on ${what}`);
    else if (message.id !== undefined) this.#toService(upstream, { jsonrpc: "2.0", id: message.id, error: { code: -32603, message: `The service could not read ${what}` } });
    return true;
  }

  /** The editor's `initialize`, with the upstreams declared in its client capabilities. */
  initialize(message: IncomingRequest): { message: IncomingRequest; text: string } | undefined {
    if (this.#processes.size === 0) return undefined;
    const rewritten = { ...message, params: withDeclaredUpstreams(message.params ?? {}, this.declared) };
    return { message: rewritten, text: requestFrame(rewritten.id, rewritten.method, rewritten.params) };
  }

  /** A `_hermes/upstream/message` from the service. */
  fromService(params: unknown): void {
    const parsed = zUpstreamMessage.safeParse(params);
    if (!parsed.success) return this.log.warn(`ignored a malformed ${UPSTREAM_MESSAGE} from the service`);
    const upstream = this.#processes.get(parsed.data.upstreamId);
    if (!upstream) return this.log.warn(`the service asked for upstream ${parsed.data.upstreamId}, which this proxy does not run`);
    upstream.deliver(parsed.data.message as Message);
  }

  stop(): void {
    for (const upstream of this.#processes.values()) upstream.kill();
  }
}

/** An agent's message on its way to the service, as a tunnel frame. */
interface Held {
  text: string;
  upstream: HostedUpstream;
  message: Message;
}

class HostedUpstream {
  #child: ChildProcess | undefined;
  /** The current process's last stderr lines: why it died is usually there. */
  #stderr: StderrTail | undefined;
  #restarts = 0;
  #dead: string | undefined;
  #stopping = false;
  /** Requests sent to the process and not answered yet: answered with an error if it dies. */
  readonly #pending = new Set<string>();
  /** The last answers it gave, by request id, oldest first: a request sent again gets its answer again. */
  readonly #answered = new Map<string, Message>();

  constructor(
    readonly id: string,
    private readonly command: string,
    private readonly log: Logger,
    private readonly send: (message: Message) => void,
  ) {}

  deliver(message: Message): void {
    const isRequest = typeof message.method === "string" && message.id !== undefined;
    if (this.#dead !== undefined) {
      if (isRequest) this.#fail(message.id, this.#dead);
      return;
    }
    const key = JSON.stringify(message.id);
    if (isRequest && this.#pending.has(key)) return this.log.debug(`[upstream ${this.id}] request ${key} sent again after a reconnect; still running`);
    const answered = isRequest ? this.#answered.get(key) : undefined;
    if (answered) {
      // Its answer may have gone down with the old socket.
      this.log.debug(`[upstream ${this.id}] request ${key} sent again after a reconnect; answered again`);
      return this.send(answered);
    }
    const child = this.#child ?? this.#start();
    if (isRequest) this.#pending.add(key);
    child.stdin?.write(JSON.stringify(message) + "\n");
  }

  /** A request of the agent's never reached the service: the agent gets the error instead of waiting for ever. */
  refusedRequest(id: unknown, message: string): void {
    this.#child?.stdin?.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message } }) + "\n");
  }

  kill(): void {
    this.#stopping = true;
    if (this.#child) killGroup(this.#child);
  }

  #start(): ChildProcess {
    this.log.info(`starting upstream ${this.id}: ${this.command}`);
    // A shell runs the command line as the user wrote it; its own process group lets kill() end the agent too.
    const child = spawn(this.command, { shell: true, stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32", env: agentEnvironment(process.env) });
    this.#child = child;
    // A process already replaced (after its "error") may still print; its lines are not its successor's.
    // Bounded like the editor's stdin: an agent that never writes a newline must not grow the proxy without end.
    const decoder = new LineDecoder();
    const onLines = (lines: ReturnType<LineDecoder["push"]>): void => {
      for (const line of lines) {
        if (this.#child !== child) return;
        if (line.kind === "line") this.#fromProcess(line.text);
        else this.#overflowed(child, line.maxBytes);
      }
    };
    child.stdout!.on("data", (chunk: Buffer) => onLines(decoder.push(chunk)));
    child.stdout!.on("end", () => onLines(decoder.end()));
    const stderr = new StderrTail((line) => this.log.debug(`[upstream ${this.id}] ${line}`));
    this.#stderr = stderr;
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.stdin?.on("error", () => undefined); // EPIPE after a crash is reported by "close"
    child.on("error", (err) => this.#exited(child, `could not be started (${err.message})`));
    // "close", not "exit": it comes after the last line of stdout, so an answer printed just before
    // the process ended reaches the service instead of an error for the same request.
    child.on("close", (code, signal) => this.#exited(child, signal ? `was killed by ${signal}` : code === 127 ? "exited with code 127 (command not found)" : `exited with code ${code}`));
    return child;
  }

  /** `child` wrote a line over the limit: it counts as failed (its requests get the cause) and is stopped. */
  #overflowed(child: ChildProcess, maxBytes: number): void {
    this.#exited(child, `wrote a message of more than ${maxBytes.toLocaleString("en-US")} bytes on stdout (no newline within the proxy's limit for one message), so it was stopped`);
    killGroup(child);
  }

  #fromProcess(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      this.log.debug(`[upstream ${this.id}] non-JSON line on stdout ignored`);
      return;
    }
    if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && message.id !== undefined) this.#answer(JSON.stringify(message.id), message);
    this.send(message);
  }

  /** `child` ended (or failed): only the current one counts; an earlier one's late "exit" after its "error" must not end its successor. */
  #exited(child: ChildProcess, why: string): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    if (this.#stopping) return;
    // "close" comes after the last of its stderr, so the tail is complete.
    const cause = `the local upstream agent ${this.id} (${this.command}) ${why}${this.#stderr?.describe() ?? ""}`;
    this.log.warn(cause);
    for (const key of [...this.#pending]) this.#answer(key, this.#fail(JSON.parse(key), cause));
    if (this.#restarts >= 1) {
      this.#dead = `${cause}, again after one restart; fix it and restart hermes-edge-proxy`;
      return;
    }
    this.#restarts += 1;
    this.log.info(`restarting upstream ${this.id} once`);
    this.#start();
  }

  #answer(key: string, answer: Message): void {
    if (!this.#pending.delete(key)) return;
    this.#answered.set(key, answer);
    if (this.#answered.size > ANSWERED_MEMORY) this.#answered.delete(this.#answered.keys().next().value!);
  }

  /** Answers a request with an error; returns the answer. */
  #fail(id: unknown, message: string): Message {
    const answer: Message = { jsonrpc: "2.0", id, error: { code: -32603, message } };
    this.send(answer);
    return answer;
  }
}

/** Ends `child` and what it started: the shell runs the agent in its own process group. */
function killGroup(child: ChildProcess): void {
  if (!child.pid || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    child.kill("SIGTERM");
  }
}

/** The user's environment for an agent the proxy starts, without the proxy's own credential for the service. */
export function agentEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { HERMES_EDGE_TOKEN: _token, ...rest } = env;
  return rest;
}
