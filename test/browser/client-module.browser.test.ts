/**
 * `/client.js` as integrators use it: imported into their own page, from
 * another origin. An allowed origin (http://localhost:*, a default) connects,
 * streams a turn and answers the agent's requests; a foreign one
 * (http://127.0.0.2:*) is refused, and the page learns why.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { serveBlankPage, type BlankPage } from "./support/blank-page.js";
import { startWebRig, type WebRig } from "./support/web-session.js";

let rig: WebRig;
let allowed: BlankPage;
let foreign: BlankPage;

beforeAll(async () => {
  rig = await startWebRig("client-module");
  allowed = await serveBlankPage("localhost", "allowed integrator");
  foreign = await serveBlankPage("127.0.0.2", "foreign integrator");
});

afterAll(async () => {
  await allowed?.close();
  await foreign?.close();
  await rig?.stop();
});

interface Outcome {
  ok: boolean;
  name?: string;
  message?: string;
  kind?: string;
  text?: string;
  stopReason?: string;
  statuses?: string[];
  permission?: string;
}

/**
 * The README's example, run in `page`: connect, start a session, prompt,
 * collect the answer. A string, so vitest does not rewrite its `import()`.
 */
const EXAMPLE = `async ({ service, key, prompt }) => {
  const { connect } = await import(service + "/client.js");
  const statuses = [];
  let text = "";
  let permission;
  try {
    const hermes = await connect({
      url: service.replace("http", "ws") + "/acp",
      key,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      handlers: {
        sessionUpdate: ({ update }) => {
          if (update.sessionUpdate === "agent_message_chunk") text += update.content.text;
        },
        requestPermission: async ({ options }) => {
          permission = options.map((o) => o.name).join(", ");
          return { outcome: { outcome: "selected", optionId: options[0].optionId } };
        },
        readTextFile: async () => ({ content: "old\\n" }),
        writeTextFile: async () => ({}),
      },
      onStatus: (status) => statuses.push(status.state),
    });
    const { sessionId } = await hermes.agent.request("session/new", { cwd: "/project", mcpServers: [] });
    const { stopReason } = await hermes.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: prompt }] });
    hermes.close();
    return { ok: true, text, stopReason, statuses, permission };
  } catch (err) {
    return { ok: false, name: err.name, message: err.message, kind: err.refusal?.kind, statuses };
  }
}`;

function runExample(page: Page, service: string, key: string, prompt: string): Promise<Outcome> {
  return page.evaluate(`(${EXAMPLE})(${JSON.stringify({ service, key, prompt })})`) as Promise<Outcome>;
}

describe("the client module on another origin", () => {
  it("connects from an allowed origin, streams a turn and answers the agent's requests", async () => {
    rig.mock.setScript("module-write", [
      { toolCalls: [{ name: "write_file", arguments: { path: "/project/a.txt", content: "new\n" } }] },
      { chunks: ["Wrote ", "a.txt."] },
    ]);
    const { page } = await rig.page();
    await page.goto(allowed.origin);
    const outcome = await runExample(page, rig.server.url, rig.key, "write it [[mock:module-write]]");
    expect(outcome).toEqual({
      ok: true,
      text: "Wrote a.txt.",
      stopReason: "end_turn",
      statuses: ["connecting", "open", "closed"],
      permission: "Allow once, Allow for this session, Always allow in this project, Deny",
    });
  });

  it("tells an allowed page that its key was refused, in the service's words", async () => {
    const { page } = await rig.page();
    await page.goto(allowed.origin);
    const outcome = await runExample(page, rig.server.url, "wrong-key", "hi");
    expect(outcome).toMatchObject({ ok: false, name: "ConnectionRefusedError", kind: "unauthorized", message: "The service refused the key: unknown token" });
  });

  it("refuses a page from a foreign origin, and says which variable would allow it", async () => {
    const { page } = await rig.page();
    await page.goto(foreign.origin);
    const outcome = await runExample(page, rig.server.url, rig.key, "hi");
    expect(outcome).toMatchObject({
      ok: false,
      name: "ConnectionRefusedError",
      kind: "origin",
      message: `The service refused this page's origin (${foreign.origin}): add it to HERMES_ALLOWED_ORIGINS on the service.`,
    });
    // What the browser could not read: the service's 403 names the variable too.
    const res = await fetch(`${rig.server.url}/acp`, { headers: { Origin: foreign.origin, Authorization: `Bearer ${rig.key}` } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("add it to HERMES_ALLOWED_ORIGINS");
  });

  it("serves the page with a strict Content-Security-Policy and the module to any origin", async () => {
    const page = await fetch(rig.server.url);
    const csp = page.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const module = await fetch(`${rig.server.url}/client.js`);
    expect(module.headers.get("Content-Type")).toMatch(/javascript/);
    expect(module.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });
});
