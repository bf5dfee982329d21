/**
 * The proxy's side of a reconnect for its local upstream agents: what an agent
 * says while the service is unreachable waits and goes out once the bridge is
 * back online, and a request the service sends again after the reconnect
 * (it may have been lost with the old socket) reaches the agent only once.
 * The agent is a real process: a small line-echoing script.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../src/line-framing.js";
import { createLogger } from "../src/log.js";
import { agentEnvironment, OFFLINE_LIMIT, UpstreamHost } from "../src/upstream-host.js";
import { removeScratchDirs, scratchDir } from "../../test/support/scratch-dir.js";

afterAll(removeScratchDirs);

// Answers each request with the method and how many requests it has seen; says "hi" when told to.
const AGENT = `
let n = 0;
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "say") return console.log(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { text: m.params.text } }));
  if (m.method !== undefined && m.id !== undefined) console.log(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { method: m.method, seen: ++n } }));
});
`;

const hosts: UpstreamHost[] = [];
afterEach(() => hosts.splice(0).forEach((h) => h.stop()));

function host(): { host: UpstreamHost; received: unknown[]; lines: string[] } {
  const file = join(scratchDir("upstream-host-"), "agent.cjs");
  writeFileSync(file, AGENT);
  const lines: string[] = [];
  const h = new UpstreamHost({ echo: `"${process.execPath}" "${file}"` }, createLogger("debug", (line) => lines.push(line)));
  hosts.push(h);
  return { host: h, received: [], lines };
}

const request = (id: string, method = "session/prompt") => ({ upstreamId: "echo", message: { jsonrpc: "2.0", id, method, params: {} } });
const messages = (texts: unknown[]) => texts.map((t) => (JSON.parse(t as string) as { params: { message: unknown } }).params.message);
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((r) => setTimeout(r, 20));
  expect(check()).toBe(true);
};

describe("agentEnvironment", () => {
  it("passes the user's environment to a hosted agent, without the proxy's own service token", () => {
    expect(agentEnvironment({ PATH: "/bin", HOME: "/home/u", GITHUB_TOKEN: "gh", HERMES_EDGE_TOKEN: "secret" })).toEqual({ PATH: "/bin", HOME: "/home/u", GITHUB_TOKEN: "gh" });
  });
});

describe("UpstreamHost across a reconnect", () => {
  it("holds what the agent says while offline and sends it, in order, once online", async () => {
    const { host: h, received } = host();
    h.fromService(request("a~1", "initialize")); // offline from the start: nothing is connected yet
    h.fromService({ upstreamId: "echo", message: { jsonrpc: "2.0", method: "say", params: { text: "while away" } } });
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toEqual([]);
    h.online((text) => received.push(text));
    await until(() => received.length === 2);
    expect(messages(received)).toEqual([
      { jsonrpc: "2.0", id: "a~1", result: { method: "initialize", seen: 1 } },
      { jsonrpc: "2.0", method: "session/update", params: { text: "while away" } },
    ]);
    h.offline();
    h.fromService({ upstreamId: "echo", message: { jsonrpc: "2.0", method: "say", params: { text: "second outage" } } });
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toHaveLength(2);
    h.online((text) => received.push(text));
    expect(messages(received.slice(2))).toEqual([{ jsonrpc: "2.0", method: "session/update", params: { text: "second outage" } }]);
  });

  it("passes a request id the service sends again to the agent only once, and answers it again once answered", async () => {
    const { host: h, received, lines } = host();
    h.online((text) => received.push(text));
    h.fromService(request("a~1~2"));
    h.fromService(request("a~1~2")); // again while pending: the answer is on its way
    await until(() => received.length === 1);
    h.fromService(request("a~1~2")); // again after it was answered: the answer may have been lost with the old socket
    h.fromService(request("a~1~3"));
    await until(() => received.length === 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(messages(received)).toEqual([
      { jsonrpc: "2.0", id: "a~1~2", result: { method: "session/prompt", seen: 1 } },
      { jsonrpc: "2.0", id: "a~1~2", result: { method: "session/prompt", seen: 1 } },
      { jsonrpc: "2.0", id: "a~1~3", result: { method: "session/prompt", seen: 2 } },
    ]);
    expect(lines.filter((l) => /sent again after a reconnect; still running/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /sent again after a reconnect; answered again/.test(l))).toHaveLength(1);
  });

  it("keeps at most OFFLINE_LIMIT messages while offline, dropping the oldest with a warning", async () => {
    const { host: h, received, lines } = host();
    for (let i = 0; i <= OFFLINE_LIMIT; i += 1) h.fromService({ upstreamId: "echo", message: { jsonrpc: "2.0", method: "say", params: { text: `m${i}` } } });
    await until(() => lines.some((l) => /dropped the oldest/.test(l)));
    h.online((text) => received.push(text));
    expect(received).toHaveLength(OFFLINE_LIMIT);
    expect(messages(received)[0]).toMatchObject({ params: { text: "m1" } });
  });

  it("names what an agent that dies wrote on stderr in the error its pending request gets", async () => {
    const file = join(scratchDir("upstream-host-"), "agent.cjs");
    writeFileSync(file, `require("node:readline").createInterface({ input: process.stdin }).on("line", () => { console.error("error: not logged in; run copilot login"); process.exit(1); });`);
    const h = new UpstreamHost({ echo: `"${process.execPath}" "${file}"` }, createLogger("debug", () => undefined));
    hosts.push(h);
    const received: unknown[] = [];
    h.online((text) => received.push(text));
    h.fromService(request("a~1", "initialize"));
    await until(() => received.length === 1);
    expect(messages(received)[0]).toMatchObject({
      id: "a~1",
      error: { code: -32603, message: expect.stringMatching(/upstream agent echo .* exited with code 1; its stderr ended: "error: not logged in; run copilot login"$/) },
    });
  });

  it("stops an agent that writes more than the message limit without a newline, failing its request with the limit named", async () => {
    const dir = scratchDir("upstream-host-");
    const file = join(dir, "agent.cjs");
    const pids = join(dir, "pids");
    // 40 MiB of one line, never ended, and the process stays.
    writeFileSync(file, `require("node:fs").appendFileSync(${JSON.stringify(pids)}, process.pid + "\\n");
      require("node:readline").createInterface({ input: process.stdin }).once("line", () => {
        const mib = "x".repeat(1024 * 1024);
        let n = 0;
        const more = () => { while (n < 40) { n += 1; if (!process.stdout.write(mib)) return process.stdout.once("drain", more); } };
        more();
      });
      setInterval(() => undefined, 1000);`);
    const h = new UpstreamHost({ echo: `exec "${process.execPath}" "${file}"` }, createLogger("debug", () => undefined));
    hosts.push(h);
    const received: unknown[] = [];
    h.online((text) => received.push(text));
    h.fromService(request("a~1", "initialize"));
    await until(() => received.length === 1);
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(32 * 1024 * 1024);
    expect(messages(received)[0]).toMatchObject({
      id: "a~1",
      error: { code: -32603, message: expect.stringMatching(/upstream agent echo .* wrote a message of more than 33,554,432 bytes on stdout \(no newline within the proxy's limit for one message\), so it was stopped/) },
    });
    // The first process is gone; it is restarted once, as after a crash.
    const first = Number(readFileSync(pids, "utf8").split("\n")[0]);
    await until(() => !alive(first));
    await until(() => readFileSync(pids, "utf8").trim().split("\n").length === 2);
  });

  it("ignores malformed messages from the service and upstreams it does not run", () => {
    const { host: h, lines } = host();
    h.fromService({ upstreamId: "echo", message: { id: 1 } });
    h.fromService({ upstreamId: "bad id", message: { jsonrpc: "2.0" } });
    h.fromService({ upstreamId: "other", message: { jsonrpc: "2.0", id: 1, method: "x" } });
    expect(lines.filter((l) => /ignored a malformed/.test(l))).toHaveLength(2);
    expect(lines.some((l) => /upstream other, which this proxy does not run/.test(l))).toBe(true);
  });
});

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8")); // a zombie has exited
  } catch {
    return false;
  }
}
