/**
 * An editor for end-to-end tests: the official SDK client spawning the BUILT
 * `hermes-edge-proxy` (proxy/dist/cli.js) and talking ndjson over its stdio,
 * every frame it reads checked against the ACP v1 JSON schema.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client, ndJsonStream, type SessionNotification } from "@agentclientprotocol/sdk";
import { AgentFrameValidator } from "../support/acp-schema.js";
import { answerRequests, type EditorHandlers } from "./sdk-client.js";
import { expect, onTestFailed } from "vitest";
import { scratchDir } from "../support/scratch-dir.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const PROXY_DIR = join(REPO_ROOT, "proxy");
export const CLI = join(PROXY_DIR, "dist", "cli.js");

/**
 * `npm ci` builds the proxy (its `prepare` script); this covers a clone where
 * dist/ is missing or older than the sources, so the test never runs stale code.
 */
export function ensureProxyBuilt(): void {
  // dist/cli.js bundles the proxy's sources and the protocol package's.
  const sources = [join(PROXY_DIR, "src"), join(REPO_ROOT, "packages", "protocol", "src")].flatMap((dir) =>
    readdirSync(dir).map((f) => statSync(join(dir, f)).mtimeMs),
  );
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= Math.max(...sources)) return;
  execFileSync("npm", ["run", "build", "-w", "hermes-edge-proxy"], { cwd: REPO_ROOT, stdio: "inherit" });
}

/** The environment without the developer's HERMES_EDGE_* and saved config. */
export function isolatedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = scratchDir("hermes-proxy-e2e-");
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("HERMES_EDGE_")) env[key] = value;
  }
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...extra };
}

export type Frame = { jsonrpc?: string; id?: string | number | null; method?: string; params?: any; result?: any; error?: any };

export interface Editor {
  readonly child: ChildProcessWithoutNullStreams;
  readonly agent: ReturnType<ReturnType<typeof client>["connect"]>["agent"];
  /** Every frame the editor read on stdout, in order. */
  readonly frames: Frame[];
  /** stdout lines that were not JSON-RPC 2.0 frames. */
  readonly garbage: string[];
  readonly updates: SessionNotification[];
  readonly validator: AgentFrameValidator;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** Writes raw bytes to the proxy's stdin, next to the SDK's own lines. */
  sendRaw(text: string): void;
  /** Closes stdin (the editor quits) and resolves with the exit code. */
  quit(): Promise<number | null>;
  kill(): Promise<void>;
}

/** Splits a byte stream into lines and calls `onLine` for each complete one. */
export function lineSplitter(onLine: (line: string) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let buffer = "";
  return (chunk) => {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) onLine(line);
    }
  };
}

/** Spawns the built proxy and connects the official SDK client to its stdio. */
export function startEditor(args: string[], env: Record<string, string> = isolatedEnv(), handlers: EditorHandlers = {}): Editor {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  const validator = new AgentFrameValidator();
  const frames: Frame[] = [];
  const garbage: string[] = [];
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );

  // Editor ← proxy: tap every line before the SDK parses it.
  const onStdoutLine = lineSplitter((line) => {
    let frame: Frame;
    try {
      frame = JSON.parse(line) as Frame;
    } catch {
      garbage.push(line);
      return;
    }
    if (frame.jsonrpc !== "2.0") garbage.push(line);
    frames.push(frame);
    validator.received(frame);
  });
  const input = (Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onStdoutLine(chunk);
        controller.enqueue(chunk);
      },
    }),
  );
  // Editor → proxy: record the SDK's requests so responses can be checked against their method.
  const onStdinLine = lineSplitter((line) => validator.sent(JSON.parse(line) as Frame));
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      onStdinLine(chunk);
      return new Promise<void>((resolve, reject) => child.stdin.write(chunk, (err) => (err ? reject(err) : resolve())));
    },
    close() {
      child.stdin.end();
    },
  });
  child.stdin.on("error", () => undefined); // EPIPE after the proxy exited

  const updates: SessionNotification[] = [];
  const app = client({ name: "hermes-edge-proxy-e2e" }).onNotification("session/update", (ctx) => {
    updates.push(ctx.params);
  });
  // `_hermes/turn_ended` and any other extension notification: recorded in `frames`.
  app.onNotification("*", () => undefined);
  answerRequests(app, handlers);
  const conn = app.connect(ndJsonStream(output, input));

  // A test that fails says how its proxy is, and what it said last (a proxy that went away mid-test).
  if (expect.getState().currentTestName !== undefined) {
    onTestFailed(() => {
      const how = child.exitCode !== null || child.signalCode !== null ? `exited (code ${child.exitCode}, signal ${child.signalCode})` : "still running";
      console.error(`proxy ${child.pid} ${how}; the end of its stderr:\n${stderr.slice(-4000)}`);
    });
  }

  const editor: Editor = {
    child,
    agent: conn.agent,
    frames,
    garbage,
    updates,
    validator,
    exited,
    stderr: () => stderr,
    sendRaw: (text) => child.stdin.write(text),
    async quit() {
      child.stdin.end();
      const { code } = await exited;
      conn.close();
      return code;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      conn.close();
      await conn.closed.catch(() => undefined);
    },
  };
  return editor;
}
