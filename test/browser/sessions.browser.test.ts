/**
 * Sessions in the web client beside other clients: a session driven by an
 * SDK client in the test, watched live in the page (multi-attach); the
 * session list and its folder filter; slash-command completion; keyboard use.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentText, connectSdk, type SdkClient } from "../e2e/sdk-client.js";
import { screenshot } from "./support/screenshots.js";
import { agentMessages, newSession, openApp, send, signIn, startWebRig, type WebRig } from "./support/web-session.js";

let rig: WebRig;
const sdkClients: SdkClient[] = [];

beforeAll(async () => {
  rig = await startWebRig("sessions");
});

afterAll(async () => {
  for (const c of sdkClients) await c.close();
  await rig?.stop();
});

async function sdk(): Promise<SdkClient> {
  const c = await connectSdk(rig.server.wsUrl, rig.key);
  sdkClients.push(c);
  await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return c;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i + 1} `);

describe("multi-attach", () => {
  it("shows live, in the page, a turn that an SDK client is driving", async () => {
    // 7 s of answer, so the page opens the session while it still runs, under load too (3 s was close).
    rig.mock.setScript("web-watch", [{ reasoning: "Let me think.", chunks: words(120), chunkDelayMs: 60 }]);
    const editor = await sdk();
    const { sessionId } = await editor.agent.request("session/new", { cwd: "/workspace/shared", mcpServers: [] });
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    const answer = editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Driven elsewhere [[mock:web-watch]]" }] });
    await expect.poll(() => agentText(editor.updates, sessionId).includes("w3 ")).toBe(true);

    await page.getByRole("button", { name: "Refresh sessions" }).click();
    await page.getByRole("list", { name: "Sessions", exact: true }).getByRole("button", { name: /Driven elsewhere/ }).click();
    await page.getByText("Turn running").waitFor();
    expect(await page.locator(".msg-user .prompt-text").innerText()).toBe("Driven elsewhere [[mock:web-watch]]");
    const partway = (await agentMessages(page)).join("");
    expect(partway.length).toBeGreaterThan(0);
    await expect.poll(async () => (await agentMessages(page)).join("").length).toBeGreaterThan(partway.length);
    await screenshot(page, "09-watching-another-client");

    expect((await answer).stopReason).toBe("end_turn");
    await expect.poll(() => agentMessages(page)).toEqual([agentText(editor.updates, sessionId).trim()]);
    await expect.poll(() => page.getByText("Turn running").count()).toBe(0);
    expect(await page.locator("details.thought").count()).toBe(1);
  });
});

describe("opening a session another client made", () => {
  it("keeps the session's additional directories (a load's roots are its complete set)", async () => {
    rig.mock.setScript("web-roots", [{ text: "ok" }]);
    const editor = await sdk();
    const { sessionId } = await editor.agent.request("session/new", { cwd: "/workspace/roots", additionalDirectories: ["/workspace/lib"], mcpServers: [] } as never);
    await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Made with two roots [[mock:web-roots]]" }] });
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await page.getByRole("button", { name: "Refresh sessions" }).click();
    await page.getByRole("list", { name: "Sessions", exact: true }).getByRole("button", { name: /Made with two roots/ }).click();
    await page.locator(".msg-user").first().waitFor();
    const { sessions } = await editor.agent.request("session/list", { cwd: "/workspace/roots" });
    expect(sessions.find((s) => s.sessionId === sessionId)?.additionalDirectories).toEqual(["/workspace/lib"]);
  });
});

describe("the session list", () => {
  it("lists sessions newest first and filters them by working directory", async () => {
    const editor = await sdk();
    const made: string[] = [];
    for (const cwd of ["/srv/alpha", "/srv/beta", "/srv/alpha"]) {
      const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
      await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `hello from ${cwd} #${made.length}` }] });
      made.push(sessionId);
    }
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    const list = page.getByRole("list", { name: "Sessions", exact: true });
    const names = () => list.locator(".session-name").allInnerTexts();
    await expect.poll(async () => (await names()).slice(0, 3)).toEqual(["hello from /srv/alpha #2", "hello from /srv/beta #1", "hello from /srv/alpha #0"]);
    await page.getByRole("searchbox", { name: "Filter by folder" }).fill("/srv/alpha");
    await page.keyboard.press("Enter");
    await expect.poll(names).toEqual(["hello from /srv/alpha #2", "hello from /srv/alpha #0"]);
    await page.getByRole("searchbox", { name: "Filter by folder" }).fill("/srv/none");
    await page.keyboard.press("Enter");
    await page.getByText("No sessions in /srv/none yet.").waitFor();
    await list.getByRole("button").count().then((n) => expect(n).toBe(0));
  });

  it("explains a working directory the service refuses", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSessionExpectingError(page, "relative/path");
    expect(await page.getByRole("alert").innerText()).toMatch(/^Could not start a session in "relative\/path": /);
  });
});

async function newSessionExpectingError(page: import("playwright-core").Page, cwd: string): Promise<void> {
  await page.getByLabel("Working directory", { exact: true }).fill(cwd);
  await page.getByRole("button", { name: "New session", exact: true }).click();
  await page.getByRole("alert").waitFor();
}

describe("the prompt box", () => {
  it("completes slash commands from the session's available commands", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    const prompt = page.getByRole("textbox", { name: "Prompt", exact: true });
    await prompt.fill("/co");
    const options = page.getByRole("listbox", { name: "Slash commands" }).getByRole("option");
    // In the order the service lists them (src/session/slash-commands.ts).
    await expect.poll(() => options.locator(".command-name").allInnerTexts()).toEqual(["/context", "/compress"]);
    expect(await options.nth(0).getAttribute("aria-selected")).toBe("true");
    // A screen reader hears the list and the option chosen while focus stays in the prompt,
    // which stays a textbox labelled "Prompt" (the name clients and checks rely on).
    const aria = (name: string) => prompt.getAttribute(name);
    const listId = await page.getByRole("listbox", { name: "Slash commands" }).getAttribute("id");
    expect([await aria("aria-autocomplete"), await aria("aria-controls")]).toEqual(["list", listId]);
    const ids = await options.evaluateAll((els) => els.map((el) => el.id));
    expect(new Set(ids.filter(Boolean)).size).toBe(2);
    expect(await aria("aria-activedescendant")).toBe(ids[0]);
    await screenshot(page, "10-slash-commands");
    await page.keyboard.press("ArrowDown");
    expect(await options.nth(1).getAttribute("aria-selected")).toBe("true");
    expect(await options.nth(0).getAttribute("aria-selected")).toBe("false");
    expect(await aria("aria-activedescendant")).toBe(ids[1]);
    await page.keyboard.press("Tab");
    expect(await prompt.inputValue()).toBe("/compress ");
    expect(await page.getByRole("listbox", { name: "Slash commands" }).count()).toBe(0);
    expect([await aria("aria-controls"), await aria("aria-activedescendant")]).toEqual([null, null]);
    await prompt.fill("/vers");
    await page.keyboard.press("Enter");
    expect(await prompt.inputValue()).toBe("/version ");
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await agentMessages(page)).join("")).toContain("hermes-edge");
  });

  it("is usable by keyboard alone: sign in, start a session, send", async () => {
    const { page } = await rig.page();
    await openApp(page, rig.url);
    await page.keyboard.type(rig.key); // the key field has focus on load
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space"); // Remember this browser
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter"); // Sign in
    await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("hermes-edge.key"))).toBe(rig.key);
    await page.getByLabel("Working directory", { exact: true }).focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("New session");
    await page.keyboard.press("Enter");
    await page.getByRole("textbox", { name: "Prompt", exact: true }).focus();
    await page.keyboard.type("typed, not clicked");
    await page.keyboard.press("Enter");
    await expect.poll(() => agentMessages(page)).toEqual(["Echo: typed, not clicked"]);
  });
});

describe("rendering a turn", () => {
  it("shows the plan and a sub-agent tree whose lines open onto each sub-agent's tool calls", async () => {
    rig.mock.setScript("web-parent", [
      {
        toolCalls: [
          { id: "call_todo", name: "todo", arguments: { todos: [{ content: "Read the notes", status: "in_progress" }, { content: "Summarize them", status: "pending" }] } },
        ],
      },
      { toolCalls: [{ id: "call_delegate", name: "delegate_task", arguments: { tasks: [{ goal: "Read the notes [[mock:web-child-a]]" }, { goal: "Say hi [[mock:web-child-b]]" }] } }] },
      { text: "Both sub-agents are done." },
    ]);
    rig.mock.setScript("web-child-a", [{ toolCalls: [{ name: "read_file", arguments: { path: "/workspace/notes.md" } }] }, { text: "The notes say hello." }]);
    rig.mock.setScript("web-child-b", [{ text: "hi" }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await page.locator("aside.workspace input[type=file]").setInputFiles({ name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("hello\n") });
    await newSession(page);
    await send(page, "[[mock:web-parent]] plan, then delegate");
    await expect.poll(() => agentMessages(page), { timeout: 30_000 }).toEqual(["Both sub-agents are done."]);

    const plan = page.getByRole("region", { name: "Plan" });
    expect(await plan.getByRole("listitem").allTextContents()).toEqual(["◐ Read the notes (in progress)", "○ Summarize them (pending)"]);
    const delegate = page.getByRole("article", { name: "Run: Delegate 2 tasks" });
    const tasks = delegate.getByRole("list", { name: "Sub-agents" }).getByRole("listitem");
    expect(await tasks.count()).toBe(2);
    expect(await tasks.locator("summary .pill").allInnerTexts()).toEqual(["completed", "completed"]);
    expect(await tasks.nth(0).locator("summary").innerText()).toMatch(/\[1\] Read the notes \[\[mock:web-child-a\]\].* · 1 tool call$/);
    await tasks.nth(0).locator("summary").click();
    const childCall = tasks.nth(0).getByRole("article", { name: "Read: Read /workspace/notes.md" });
    expect(await childCall.locator(".pill").innerText()).toBe("done");
    // The child's tool call is nested, not listed in the conversation itself.
    expect(await page.locator(".transcript > article.tool").count()).toBe(2);
    await screenshot(page, "11-plan-and-subagents");
  });
});
