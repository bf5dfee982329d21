/**
 * Issue 26, item 1: a long answer from a fast model must not kill the local
 * service. A 20,000-delta answer, written by the mock as fast as it can, goes
 * through `npm start` (its own command line, in a copy of the checkout) and
 * through plain `wrangler dev` (no `--env-file`, nothing in the environment:
 * what wrangler reads from the checkout is all it gets). Each run must end the
 * turn, deliver every delta's text in order, keep /health answering, and keep
 * every workerd's socket count bounded: with wrangler's DevTools inspector
 * attached, the relay opened a socket to wrangler's node process per read of
 * the model's answer (~40,000 for this one) and ran out of file descriptors.
 *
 * In the `subprocess` project: each test starts wrangler (20 to 60 s under load).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentText, connectSdk } from "../../e2e/sdk-client.js";
import { copyCheckout, type CheckoutCopy } from "../../support/checkout-copy.js";
import { startMockOpenAI, type MockOpenAI } from "../../support/mock-openai.js";
import { watchWorkerdSockets } from "../../support/process-sockets.js";
import { groupAlive, killGroup } from "../../../scripts/lib/process-group.js";
import { freePort, startDevServer, type DevServer } from "../../support/wrangler-dev.js";

const DELTAS = 20_000;
const TOKEN = "tok-long";
/** The inspector's relay reached ~20,000; without it the service holds a few dozen (44 measured). */
const SOCKET_LIMIT = 500;
const PROMPT_TIMEOUT_MS = 180_000;
const START_TIMEOUT_MS = 150_000;

const expectedText = Array.from({ length: DELTAS }, (_, i) => (i === 0 ? "t0" : ` t${i}`)).join("");

/** The user's environment minus anything that would switch the inspector off (or on) by itself. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false", NO_COLOR: "1", ...extra };
  delete env["VSCODE_INSPECTOR_OPTIONS"];
  delete env["HERMES_INSPECTOR"];
  return env;
}

/**
 * Streams the answer through the service at `port` while watching the sockets of
 * group `pgid`'s workerd processes; fails at once if one holds more than the limit.
 */
async function longAnswer(mock: MockOpenAI, port: number, pgid: number): Promise<{ peakSockets: number }> {
  const key = `long-${port}`;
  mock.setScript(key, [{ tokens: DELTAS }]);
  const client = await connectSdk(`ws://127.0.0.1:${port}/acp`, TOKEN);
  let overLimit: (error: Error) => void = () => {};
  const over = new Promise<never>((_, reject) => (overLimit = reject));
  over.catch(() => {}); // it may reject before the race below listens; the race still sees it
  const stopTimer = new AbortController();
  const watch = watchWorkerdSockets(pgid, {
    limit: SOCKET_LIMIT,
    onOver: (count) => overLimit(new Error(`a workerd of wrangler dev holds ${count} sockets (limit ${SOCKET_LIMIT}) during the answer`)),
  });
  try {
    await client.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await client.agent.request("session/new", { cwd: "/home/dev/project", mcpServers: [] });
    const prompt = client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `A long answer [[mock:${key}]]` }] });
    const timeout = sleep(PROMPT_TIMEOUT_MS, undefined, { signal: stopTimer.signal }).then(
      () => Promise.reject(new Error(`no answer within ${PROMPT_TIMEOUT_MS} ms`)),
      () => new Promise<never>(() => {}), // stopped: the race was decided
    );
    const answer = await Promise.race([prompt, over, timeout]);
    expect(answer.stopReason).toBe("end_turn");
    expect(mock.calls(key)).toHaveLength(1);
    const text = agentText(client.updates, sessionId);
    expect(text.length).toBe(expectedText.length);
    expect(text === expectedText, "the client got every delta's text, in order").toBe(true);
    const health = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(10_000) });
    expect(health.status).toBe(200);
    return { peakSockets: watch.peak() };
  } finally {
    stopTimer.abort();
    watch.stop();
    await client.close();
  }
}

describe("a 20,000-delta answer from a fast model", { timeout: START_TIMEOUT_MS + PROMPT_TIMEOUT_MS + 60_000 }, () => {
  let mock: MockOpenAI;
  let copy: CheckoutCopy;

  beforeAll(async () => {
    mock = await startMockOpenAI();
    copy = copyCheckout();
  });

  afterAll(async () => {
    await mock?.close();
    copy?.remove();
  });

  it("passes through plain `wrangler dev` in the checkout with nothing lost", async () => {
    // No --env-file and no --var: the copy's committed .env and a .dev.vars of the test's own (the
    // developer's is never copied), as a user's `npx wrangler dev` reads them.
    writeFileSync(
      join(copy.dir, ".dev.vars"),
      [`OPENAI_BASE_URL=${mock.url}/v1`, "OPENAI_API_KEY=test-key", "HERMES_MODEL=mock-model", `HERMES_EDGE_TOKENS=long:${TOKEN}`].join("\n") + "\n",
    );
    const saved = process.env["VSCODE_INSPECTOR_OPTIONS"];
    delete process.env["VSCODE_INSPECTOR_OPTIONS"]; // startDevServer passes this process's environment on
    let server: DevServer;
    try {
      server = await startDevServer({ cwd: copy.dir, vars: {}, readDotEnv: true, startTimeoutMs: START_TIMEOUT_MS });
    } finally {
      if (saved !== undefined) process.env["VSCODE_INSPECTOR_OPTIONS"] = saved;
    }
    try {
      const { peakSockets } = await longAnswer(mock, server.port, server.pid);
      expect(peakSockets).toBeLessThan(SOCKET_LIMIT);
    } finally {
      await server.stop();
      rmSync(join(copy.dir, ".dev.vars"), { force: true });
    }
  });

  it("passes through `npm start` with nothing lost", async () => {
    writeFileSync(
      join(copy.dir, ".dev.vars"),
      [`OPENAI_BASE_URL=${mock.url}/v1`, "OPENAI_API_KEY=test-key", "HERMES_MODEL=mock-model", `HERMES_EDGE_TOKENS=long:${TOKEN}`, "HERMES_ADMIN_TOKEN=admin-long"].join("\n") + "\n",
    );
    const port = await freePort();
    const logs = mkdtempSync(join(tmpdir(), "hermes-edge-start-logs-"));
    // `npm start` as README gives it, in its own process group so that stopping it reaches workerd.
    const child = spawn("npm", ["start"], {
      cwd: copy.dir,
      env: userEnv({ PORT: String(port), WRANGLER_LOG_PATH: logs }),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pgid = child.pid!;
    let output = "";
    const keep = (data: Buffer) => (output = (output + stripVTControlCharacters(data.toString("utf8"))).slice(-8_000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    try {
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${output}`);
        if (Date.now() > deadline) throw new Error(`npm start: /health did not answer within ${START_TIMEOUT_MS} ms:\n${output}`);
        const up = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
        if (up) break;
        await sleep(250);
      }
      const { peakSockets } = await longAnswer(mock, port, pgid);
      expect(peakSockets).toBeLessThan(SOCKET_LIMIT);
    } finally {
      killGroup(pgid, "SIGTERM");
      for (let i = 0; i < 100 && groupAlive(pgid); i++) await sleep(50);
      if (groupAlive(pgid)) killGroup(pgid, "SIGKILL"); // a group gone may have lent its id to another process
      rmSync(logs, { recursive: true, force: true });
      rmSync(join(copy.dir, ".dev.vars"), { force: true });
    }
  });
});
