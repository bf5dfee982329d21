/**
 * A hosted upstream agent's restart is tied to the process it belongs to:
 * Node may report a child's "error" (a failed kill, say) and later its "exit".
 * The first starts the successor; the late exit of the old process must not
 * end the successor too. The agents are real processes (a line-echoing script);
 * only the spawn is watched, to reach the first process.
 */
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../src/log.js";
import { UpstreamHost } from "../src/upstream-host.js";
import { removeScratchDirs, scratchDir } from "../../test/support/scratch-dir.js";

afterAll(removeScratchDirs);

const { spawned } = vi.hoisted(() => ({ spawned: [] as ChildProcess[] }));
vi.mock("node:child_process", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:child_process")>();
  const spawn = ((...args: Parameters<typeof actual.spawn>) => {
    const child = actual.spawn(...args);
    spawned.push(child);
    return child;
  }) as typeof actual.spawn;
  return { ...actual, spawn };
});

// Answers each request with how many requests this process has seen.
const AGENT = `
let n = 0;
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method !== undefined && m.id !== undefined) console.log(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { pid: process.pid, seen: ++n } }));
});
`;

// Answers a request 300 ms late: long enough to be replaced first.
const SLOW_AGENT = `
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  setTimeout(() => console.log(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { late: true } })), 300);
});
`;

// Answers its first request and ends at once, with its answer still in the pipe.
const ONE_SHOT_AGENT = `
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { last: true } }) + "\\n", () => process.exit(3));
});
`;

function agentFile(source: string): string {
  const file = join(scratchDir("hosted-upstream-"), "agent.cjs");
  writeFileSync(file, source);
  return file;
}

type Received = { id: string; result?: Record<string, unknown>; error?: { message: string } };

function host(file: string, lines: string[] = []): { h: UpstreamHost; received: Received[]; request(id: string): void } {
  const h = new UpstreamHost({ echo: `"${process.execPath}" "${file}"` }, createLogger("debug", (line) => lines.push(line)));
  hosts.push(h);
  const received: Received[] = [];
  h.online((text) => received.push((JSON.parse(text) as { params: { message: Received } }).params.message));
  return { h, received, request: (id) => h.fromService({ upstreamId: "echo", message: { jsonrpc: "2.0", id, method: "session/prompt", params: {} } }) };
}

const hosts: UpstreamHost[] = [];
afterEach(() => {
  hosts.splice(0).forEach((h) => h.stop());
  for (const child of spawned.splice(0)) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
});

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((r) => setTimeout(r, 20));
  expect(check()).toBe(true);
};

describe("HostedUpstream restarts", () => {
  it("ignores the late exit of a process it already replaced: the restarted agent keeps answering", async () => {
    const file = join(scratchDir("hosted-upstream-"), "agent.cjs");
    writeFileSync(file, AGENT);
    const lines: string[] = [];
    const h = new UpstreamHost({ echo: `"${process.execPath}" "${file}"` }, createLogger("debug", (line) => lines.push(line)));
    hosts.push(h);
    const received: Array<{ id: string; result?: { seen: number }; error?: { message: string } }> = [];
    h.online((text) => received.push((JSON.parse(text) as { params: { message: (typeof received)[number] } }).params.message));
    const request = (id: string) => h.fromService({ upstreamId: "echo", message: { jsonrpc: "2.0", id, method: "session/prompt", params: {} } });

    request("r1");
    await until(() => received.length === 1);
    const first = spawned[0]!;
    first.emit("error", new Error("kill EPERM"));
    expect(spawned).toHaveLength(2);
    // The first process now really ends, after its successor started.
    process.kill(-first.pid!, "SIGTERM");
    await exited(first);
    await new Promise((r) => setTimeout(r, 100));

    request("r2");
    await until(() => received.length === 2);
    expect(received[1]).toEqual({ jsonrpc: "2.0", id: "r2", result: { pid: expect.any(Number), seen: 1 } });
    expect(spawned).toHaveLength(2);
    expect(spawned[1]!.exitCode).toBeNull();
    expect(lines.filter((l) => /restarting upstream echo once/.test(l))).toHaveLength(1);
    expect(lines.some((l) => /again after one restart/.test(l))).toBe(false);
  });

  it("drops what a replaced process still prints: the request it had was answered once, with the error", async () => {
    const { received, request } = host(agentFile(SLOW_AGENT));
    request("r1");
    await until(() => spawned.length === 1);
    spawned[0]!.emit("error", new Error("kill EPERM"));
    expect(received).toEqual([{ jsonrpc: "2.0", id: "r1", error: { code: -32603, message: expect.stringContaining("could not be started (kill EPERM)") } }]);
    // The first process answers r1 after all; the service must not get a second answer.
    await new Promise((r) => setTimeout(r, 600));
    expect(received).toHaveLength(1);
  });

  it("passes on an answer printed just before the process ended, instead of an error for the same request", async () => {
    const { received, request } = host(agentFile(ONE_SHOT_AGENT));
    request("r1");
    await until(() => spawned.length === 2); // it ended and was restarted once
    await new Promise((r) => setTimeout(r, 100));
    expect(received).toEqual([{ jsonrpc: "2.0", id: "r1", result: { last: true } }]);
  });
});
