/**
 * End to end as an editor runs hermes-edge: the official SDK client spawns the
 * BUILT `hermes-edge-proxy` (proxy/dist/cli.js) and talks ndjson over its
 * stdio; the proxy bridges to `wrangler dev` + the mock model. Every frame the
 * editor receives on stdout is checked against the ACP v1 JSON schema.
 *
 * The WebSocket is cut mid-turn from the proxy's side with its documented test
 * hook `HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES` (the test cannot reach into
 * the child's socket, and restarting the service would end the turn).
 */
import { spawn } from "node:child_process";
import { RequestError, type ClientCapabilities } from "@agentclientprotocol/sdk";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AGENT_NAME, AGENT_VERSION } from "../../src/acp/capabilities.js";
import type { MockOpenAI } from "../support/mock-openai.js";
import { freePort, type DevServer } from "../support/wrangler-dev.js";
import { CLI, ensureProxyBuilt, isolatedEnv, startEditor as spawnEditor, type Editor, type Frame } from "./proxy-editor.js";
import { agentText, connectSdk, type SdkClient } from "./sdk-client.js";
import { useE2eService } from "./e2e-service.js";

const TOKEN = "tok-proxy-e2e";
const CWD = "/home/dev/project";

// The shared server has no coalescing window (HERMES_COALESCE_MS=0): one session/update per model chunk, so a frame count lands mid-turn predictably.
const e2e = useE2eService(TOKEN);
let mock: MockOpenAI;
let server: DevServer;
const editors: Editor[] = [];
const direct: SdkClient[] = [];

beforeAll(() => {
  ensureProxyBuilt();
  mock = e2e.mock;
  server = e2e.server;
}, 180_000);

afterEach(async () => {
  for (const e of editors.splice(0)) await e.kill();
  for (const c of direct.splice(0)) await c.close();
});

function startEditor(args: string[], env?: Record<string, string>): Editor {
  const editor = spawnEditor(args, env);
  editors.push(editor);
  return editor;
}


function proxyArgs(...extra: string[]): string[] {
  return ["--url", server.wsUrl, "--token", TOKEN, "--log-level", "debug", ...extra];
}

/** `turnEnded`: whether this editor asks for `_hermes/turn_ended` itself (the proxy always asks the service). */
async function initialized(editor: Editor, turnEnded = true): Promise<void> {
  const clientCapabilities: ClientCapabilities = turnEnded ? { _meta: { hermes: { turnEnded: true } } } : {};
  const init = await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities });
  expect(init.agentInfo?.name).toBe(AGENT_NAME);
}

async function newSession(editor: Editor): Promise<string> {
  const { sessionId } = await editor.agent.request("session/new", { cwd: CWD, mcpServers: [] });
  return sessionId;
}

/** The seq of a session/update or `_hermes/turn_ended` frame, else undefined. */
function seqOf(frame: Frame): number | undefined {
  if (frame.method === "session/update") return frame.params?._meta?.hermes?.seq as number | undefined;
  if (frame.method === "_hermes/turn_ended") return frame.params?.seq as number | undefined;
  return undefined;
}

/** The editor's logged frames for `sessionId` (updates and turn ends), in arrival order. */
function sequenced(frames: readonly Frame[], sessionId: string): Frame[] {
  return frames.filter((f) => seqOf(f) !== undefined && f.params?.sessionId === sessionId);
}

function chunkCount(frames: readonly Frame[], sessionId: string): number {
  return frames.filter((f) => f.method === "session/update" && f.params?.sessionId === sessionId && f.params?.update?.sessionUpdate === "agent_message_chunk")
    .length;
}

/**
 * Loads the session from a fresh SDK client straight over WebSocket (its own
 * schema-checked frames) and returns the full log it replays, by seq.
 */
async function replayLog(sessionId: string): Promise<Map<number, Frame>> {
  const fresh = await connectSdk(server.wsUrl, TOKEN);
  direct.push(fresh);
  await fresh.agent.request("initialize", { protocolVersion: 1, clientCapabilities: { _meta: { hermes: { turnEnded: true } } } });
  const loaded = await fresh.agent.request("session/load", { sessionId, cwd: CWD, mcpServers: [] });
  expect((loaded._meta as any).hermes.turn).toMatchObject({ state: "idle" });
  expect(fresh.validator.errors).toEqual([]);
  const log = new Map<number, Frame>();
  for (const params of fresh.updates.filter((u) => u.sessionId === sessionId)) {
    log.set((params._meta as any).hermes.seq, { method: "session/update", params });
  }
  for (const { method, params } of fresh.custom) {
    if (method === "_hermes/turn_ended" && params.sessionId === sessionId) log.set(params.seq, { method, params });
  }
  return log;
}

/**
 * Exactly once and in order: the editor's seqs strictly increase, every frame
 * equals the logged frame with that seq, and the only logged frames it did not
 * get are its own prompts' user_message_chunks (the service does not echo a
 * prompt to the connection that sent it).
 */
async function expectExactlyOnceInOrder(editor: Editor, sessionId: string): Promise<void> {
  const got = sequenced(editor.frames, sessionId);
  const seqs = got.map((f) => seqOf(f)!);
  for (let i = 1; i < seqs.length; i++) expect(seqs[i], `seq after ${seqs[i - 1]}`).toBeGreaterThan(seqs[i - 1]!);
  const log = await replayLog(sessionId);
  for (const frame of got) expect(frame.params, `frame with seq ${seqOf(frame)}`).toEqual(log.get(seqOf(frame)!)?.params);
  const seen = new Set(seqs);
  const missing = [...log].filter(([seq]) => !seen.has(seq)).map(([seq, f]) => `${seq}:${f.method === "session/update" ? f.params.update.sessionUpdate : f.method}`);
  expect(missing.every((m) => m.endsWith(":user_message_chunk")), `logged but never delivered: ${missing.join(", ")}`).toBe(true);
  expect(Math.max(...log.keys())).toBe(seqs.at(-1));
}

function expectCleanStdout(editor: Editor): void {
  expect(editor.garbage).toEqual([]);
  expect(editor.validator.errors).toEqual([]);
  // The proxy's own requests (replayed initialize, session/resume) never reach the editor.
  expect(editor.frames.filter((f) => typeof f.id === "string" && f.id.startsWith("hermes-proxy:"))).toEqual([]);
}

function promptResponses(editor: Editor): Frame[] {
  return editor.frames.filter((f) => f.method === undefined && f.id !== null && f.result?.stopReason !== undefined);
}

function runCheck(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "--check", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("hermes-edge-proxy between the official SDK client and wrangler dev", () => {
  it("runs a full conversation: initialize, new session, a streamed prompt and a second prompt", async () => {
    mock.setScript("proxy-conv", [{ chunks: ["Hello", " from", " the", " edge"], reasoning: "let me think", chunkDelayMs: 5 }]);
    const editor = startEditor(proxyArgs());
    await initialized(editor);
    const sessionId = await newSession(editor);

    const first = await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Say hello [[mock:proxy-conv]]" }] });
    expect(first.stopReason).toBe("end_turn");
    expect(agentText(editor.updates, sessionId)).toBe("Hello from the edge");
    const kinds = editor.updates.map((u) => u.update.sessionUpdate);
    expect(kinds).toEqual(expect.arrayContaining(["available_commands_update", "agent_thought_chunk", "agent_message_chunk", "usage_update"]));

    const second = await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and again" }] });
    expect(second.stopReason).toBe("end_turn");
    expect(agentText(editor.updates, sessionId)).toBe("Hello from the edgeEcho: and again");
    const calls = mock.calls("proxy-conv");
    expect(calls).toHaveLength(2);
    expect(calls[1]!.body.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);

    expect(editor.frames.filter((f) => f.method === "_hermes/turn_ended")).toHaveLength(2);
    expect(promptResponses(editor)).toHaveLength(2);
    expectCleanStdout(editor);
    await expectExactlyOnceInOrder(editor, sessionId);
    expect(await editor.quit()).toBe(0);
    expect(editor.stderr()).not.toContain(TOKEN);
  });

  it("loses nothing and repeats nothing when the WebSocket is cut mid-turn", async () => {
    // Frames before the turn: initialize and session/new responses, available_commands_update;
    // then session_info_update (the title) and one update per chunk. Frame 12 is a chunk early in the turn.
    const DROP_AFTER = 12;
    const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
    mock.setScript("proxy-cut", [{ chunks: words, chunkDelayMs: 40 }]);
    const editor = startEditor(proxyArgs(), isolatedEnv({ HERMES_EDGE_PROXY_TEST_DROP_AFTER_FRAMES: String(DROP_AFTER) }));
    await initialized(editor);
    const sessionId = await newSession(editor);

    const answer = await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Count [[mock:proxy-cut]]" }] });
    expect(answer.stopReason).toBe("end_turn");

    // The cut really happened mid-turn: right after a chunk, with chunks still to come.
    expect(editor.stderr()).toMatch(new RegExp(`test hook: dropping the connection after ${DROP_AFTER} frames`));
    expect(editor.stderr()).toMatch(/connection to the service closed/);
    expect(editor.stderr()).toMatch(/re-attached 1 session/);
    const cutAt = editor.frames[DROP_AFTER - 1]!;
    expect(cutAt.params?.update?.sessionUpdate).toBe("agent_message_chunk");
    expect(chunkCount(editor.frames.slice(DROP_AFTER), sessionId)).toBeGreaterThan(0);

    expect(agentText(editor.updates, sessionId)).toBe(words.join(""));
    expect(chunkCount(editor.frames, sessionId)).toBe(words.length);
    expect(editor.frames.filter((f) => f.method === "_hermes/turn_ended")).toHaveLength(1);
    expect(promptResponses(editor)).toHaveLength(1);
    expect(mock.calls("proxy-cut")).toHaveLength(1);
    expectCleanStdout(editor);
    await expectExactlyOnceInOrder(editor, sessionId);
    expect(await editor.quit()).toBe(0);
  });

  it("keeps the conversation going through the same proxy process when wrangler dev restarts between turns", async () => {
    mock.setScript("proxy-restart", [{ chunks: ["before", " restart"] }, { chunks: ["after", " restart"] }]);
    const editor = startEditor(proxyArgs());
    await initialized(editor);
    const sessionId = await newSession(editor);
    const first = await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one [[mock:proxy-restart]]" }] });
    expect(first.stopReason).toBe("end_turn");
    const pid = editor.child.pid;

    await server.restart();
    expect(editor.stderr()).toMatch(/connection to the service closed/);
    // Sent while the proxy may still be backing off: it waits and goes out after re-attaching.
    const second = await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] });
    expect(second.stopReason).toBe("end_turn");

    expect(editor.child.pid).toBe(pid);
    expect(editor.child.exitCode).toBeNull();
    expect(editor.stderr()).toMatch(/re-attached 1 session/);
    expect(agentText(editor.updates, sessionId)).toBe("before restartafter restart");
    // The session's history survived the restart (persist dir) and reached the model.
    const calls = mock.calls("proxy-restart");
    expect(calls).toHaveLength(2);
    expect(calls[1]!.body.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(editor.frames.filter((f) => f.method === "_hermes/turn_ended")).toHaveLength(2);
    expect(promptResponses(editor)).toHaveLength(2);
    expectCleanStdout(editor);
    await expectExactlyOnceInOrder(editor, sessionId);
    expect(await editor.quit()).toBe(0);
  });

  it("answers a malformed stdin line with -32700 on stdout and keeps working (an editor that never sees _hermes/turn_ended)", async () => {
    const editor = startEditor(proxyArgs());
    await initialized(editor, false);
    editor.sendRaw("{this is not json\n");
    const sessionId = await newSession(editor);
    const parseError = editor.frames.find((f) => f.id === null && f.error);
    expect(parseError?.error).toMatchObject({ code: -32700 });
    expect(editor.stderr()).toMatch(/malformed frame from the editor/);

    const answer = await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(agentText(editor.updates, sessionId)).toBe("Echo: still there?");
    expect(editor.frames.filter((f) => f.method === "_hermes/turn_ended")).toEqual([]);
    expectCleanStdout(editor);
    expect(await editor.quit()).toBe(0);
  });

  it("refuses a wrong token: initialize gets a JSON-RPC error, stderr names the token source, exit 1", async () => {
    const editor = startEditor(["--url", server.wsUrl, "--token", "not-the-token"]);
    const error = await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ code: -32000, message: expect.stringContaining("the --token flag") });
    expect((await editor.exited).code).toBe(1);
    expect(editor.stderr()).toMatch(/refused the connection \(HTTP 401/);
    expect(editor.stderr()).toMatch(/Token used: the --token flag/);
    expect(editor.stderr()).not.toContain("not-the-token");
    expectCleanStdout(editor);
  });

  it("--check reports the running service and exits 0", async () => {
    const r = await runCheck(["--url", server.wsUrl], isolatedEnv({ HERMES_EDGE_TOKEN: TOKEN }));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`URL:     ${server.wsUrl} (from flag)`);
    expect(r.stdout).toContain("Token:   from the HERMES_EDGE_TOKEN environment variable");
    expect(r.stdout).toContain(`Service: ${AGENT_NAME} ${AGENT_VERSION}, ACP protocol 1`);
    expect(r.stdout).toContain("Token accepted: yes");
    expect(r.stdout).toMatch(/^OK$/m);
  });

  it("--check against a stopped service says unreachable and exits 1", async () => {
    // The shared server runs on for the files after this one: a stopped service leaves a port nothing listens on.
    const stopped = `ws://127.0.0.1:${await freePort()}/acp`;
    const r = await runCheck(["--url", stopped], isolatedEnv({ HERMES_EDGE_TOKEN: TOKEN }));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`URL:     ${stopped} (from flag)`);
    expect(r.stdout).toMatch(/FAILED \(unreachable\)/);
    expect(r.stdout).not.toMatch(/^OK$/m);
  });
});
