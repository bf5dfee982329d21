/**
 * The page's answer to the agent's request when the socket under it drops:
 * given while the client is re-attaching, or while it has no socket at all,
 * it reaches the service once the new connection is attached, the request is
 * asked once (no second dialog) and the file is written once. `/client.js` in
 * Chromium through the TCP relay (so the test can cut the network), against
 * `wrangler dev`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { serveBlankPage, type BlankPage } from "./support/blank-page.js";
import { startWebRig, type WebRig } from "./support/web-session.js";

let rig: WebRig;
let blank: BlankPage;

beforeAll(async () => {
  rig = await startWebRig("reconnect-answers");
  blank = await serveBlankPage("localhost", "reconnecting integrator");
});

afterAll(async () => {
  await blank?.close();
  await rig?.stop();
});

interface PageState {
  sockets: number;
  opened: number;
  asks: number;
  writes: number;
  statuses: string[];
  stopReason?: string;
  error?: string;
}

/**
 * Runs in the page: connects through the relay with a WebSocket whose second
 * socket can hold back what the service sends (`gateSecond`), so the client
 * stays "re-attaching" for as long as the test likes. The first permission
 * ask waits for `__t.answer()`; any further ask is counted and allowed at once.
 * A string, so vitest does not rewrite its `import()`.
 */
const SETUP = `async ({ service, relay, key, prompt, gateSecond }) => {
  const { connect } = await import(service + "/client.js");
  const state = (window.__t = { sockets: 0, opened: 0, asks: 0, writes: 0, statuses: [] });
  class Gated extends WebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      const n = ++state.sockets;
      super.addEventListener("open", () => (state.opened = n));
      if (gateSecond && n === 2) this.gate = new Promise((release) => (state.release = release));
    }
    addEventListener(type, listener, options) {
      const gate = this.gate;
      if (type !== "message" || !gate) return super.addEventListener(type, listener, options);
      return super.addEventListener(type, (event) => void gate.then(() => listener(event)), options);
    }
  }
  const allow = (options) => ({ outcome: { outcome: "selected", optionId: options[0].optionId } });
  const hermes = await connect({
    url: relay,
    key,
    WebSocket: Gated,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    handlers: {
      requestPermission: async ({ options }) => {
        state.asks += 1;
        if (state.asks === 1) await new Promise((answer) => (state.answer = answer));
        return allow(options);
      },
      readTextFile: async () => ({ content: "old\\n" }),
      writeTextFile: async () => void (state.writes += 1),
    },
    onStatus: (status) => state.statuses.push(status.state),
  });
  const { sessionId } = await hermes.agent.request("session/new", { cwd: "/project", mcpServers: [] });
  hermes.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: prompt }] }).then(
    (r) => (state.stopReason = r.stopReason),
    (e) => (state.error = String(e.message)),
  );
}`;

async function start(page: Page, script: string, gateSecond: boolean): Promise<void> {
  rig.mock.setScript(script, [{ toolCalls: [{ name: "write_file", arguments: { path: "/project/a.txt", content: "new\n" } }] }, { text: "Wrote it." }]);
  await page.goto(blank.origin);
  const args = { service: rig.server.url, relay: `ws://127.0.0.1:${rig.cutter.port}/acp`, key: rig.key, prompt: `write it [[mock:${script}]]`, gateSecond };
  await page.evaluate(`(${SETUP})(${JSON.stringify(args)})`);
}

const state = (page: Page) => page.evaluate("({ ...window.__t })") as Promise<PageState>;

describe("an answer to the agent across a reconnect", () => {
  it("waits for the re-attach when given while re-attaching, and the agent asks once", async () => {
    const { page } = await rig.page();
    await start(page, "answer-attaching", true);
    await expect.poll(async () => (await state(page)).asks, { timeout: 20_000 }).toBe(1);
    rig.cutter.cut();
    // The second socket is open, but the service's answer to the replayed initialize is held back.
    await expect.poll(async () => (await state(page)).opened, { timeout: 20_000 }).toBe(2);
    await page.evaluate("window.__t.answer()");
    // Time for an answer sent too early to reach the service (which drops it: not attached yet).
    await new Promise((r) => setTimeout(r, 500));
    await page.evaluate("window.__t.release()");
    await expect.poll(async () => (await state(page)).stopReason, { timeout: 20_000 }).toBe("end_turn");
    expect(await state(page)).toMatchObject({ asks: 1, writes: 1, sockets: 2 });
  });

  it("is sent once the new connection is attached when given with no connection, and the agent asks once", async () => {
    const { page } = await rig.page();
    await start(page, "answer-offline", false);
    await expect.poll(async () => (await state(page)).asks, { timeout: 20_000 }).toBe(1);
    rig.cutter.cut(1500);
    await expect.poll(async () => (await state(page)).statuses.at(-1)).toBe("reconnecting");
    await page.evaluate("window.__t.answer()");
    await expect.poll(async () => (await state(page)).stopReason, { timeout: 20_000 }).toBe("end_turn");
    const after = await state(page);
    expect(after).toMatchObject({ asks: 1, writes: 1 });
    expect(after.statuses.at(-1)).toBe("open");
  });
});

/**
 * Runs in the page: connects with a WebSocket through which the test can hand
 * the client frames as if the service had sent them (`__w.inject`), and
 * counts the permission asks that reach the page and those withdrawn.
 */
const TAPPED = `async ({ service, key }) => {
  const { connect } = await import(service + "/client.js");
  const state = (window.__w = { asks: 0, withdrawn: 0 });
  class Tapped extends WebSocket {
    addEventListener(type, listener, options) {
      if (type === "message") state.inject = (message) => listener(new MessageEvent("message", { data: JSON.stringify(message) }));
      return super.addEventListener(type, listener, options);
    }
  }
  await connect({
    url: service.replace("http", "ws") + "/acp",
    key,
    WebSocket: Tapped,
    handlers: {
      requestPermission: (_params, signal) => {
        state.asks += 1;
        return new Promise((answer) => signal.addEventListener("abort", () => {
          state.withdrawn += 1;
          answer({ outcome: { outcome: "cancelled" } });
        }));
      },
    },
  });
}`;

describe("a request the service withdraws", () => {
  it("is forgotten by the page's table of the service's requests: a later request under its id is asked, not taken for a copy", async () => {
    const { page } = await rig.page();
    await page.goto(blank.origin);
    await page.evaluate(`(${TAPPED})(${JSON.stringify({ service: rig.server.url, key: rig.key })})`);
    const counts = () => page.evaluate("({ asks: window.__w.asks, withdrawn: window.__w.withdrawn })");
    const ask = {
      jsonrpc: "2.0",
      id: "hermes:injected:1",
      method: "session/request_permission",
      params: { sessionId: "injected", toolCall: { toolCallId: "t1", title: "Injected" }, options: [{ optionId: "allow", name: "Allow once", kind: "allow_once" }] },
    };
    const inject = (message: unknown) => page.evaluate(`window.__w.inject(${JSON.stringify(message)})`);
    await inject(ask);
    await expect.poll(counts).toEqual({ asks: 1, withdrawn: 0 });
    await inject({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: ask.id } });
    await expect.poll(counts).toEqual({ asks: 1, withdrawn: 1 });
    // Had the page kept it, this would pass for the service's copy of a request it already answered.
    await inject(ask);
    await expect.poll(counts).toEqual({ asks: 2, withdrawn: 1 });
  });
});
