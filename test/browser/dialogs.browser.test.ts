/**
 * The page's dialogs (a permission, a question) under pressure, as a
 * keyboard and screen-reader user meets them: Escape pressed again and
 * again, a second request arriving while the user types an answer, the
 * connection dropping while a dialog is open, and the service giving up on
 * a request while the page is offline. Real Chromium against `wrangler dev`
 * and the mock model; the network is cut with the TCP relay.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { agentMessages, newSession, send, signIn, startWebRig, type WebRig } from "./support/web-session.js";

let rig: WebRig;

beforeAll(async () => {
  rig = await startWebRig("dialogs");
});

afterAll(async () => {
  await rig?.stop();
});

/** Until when the relay refuses connections: a test that failed during an outage must not fail the next one too. */
let offlineUntil = 0;

function cut(refuseForMs: number): void {
  offlineUntil = Date.now() + refuseForMs;
  rig.cutter.cut(refuseForMs);
}

beforeEach(async () => {
  await new Promise((r) => setTimeout(r, Math.max(0, offlineUntil - Date.now())));
});

const writeStep = (path: string, extra: object = {}) => ({ ...extra, toolCalls: [{ name: "write_file", arguments: { path, content: "new\n" } }] });

/** The texts a screen reader can reach: Chromium's accessibility tree, without the nodes it ignores (say, inert ones). */
async function accessibleTexts(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as { nodes: Array<{ ignored: boolean; role?: { value: string }; name?: { value: string } }> };
  await cdp.detach();
  return nodes.filter((n) => !n.ignored && n.role?.value === "StaticText").map((n) => n.name?.value ?? "");
}

describe("the permission dialog", () => {
  it("stays open however often Escape is pressed, and is answered by keyboard", async () => {
    rig.mock.setScript("dialog-escape", [writeStep("/workspace/escape.md"), { text: "Wrote it." }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Write it [[mock:dialog-escape]]");
    const dialog = page.getByRole("dialog", { name: "Write /workspace/escape.md" });
    await dialog.waitFor();
    // Chromium closes a dialog on a repeated Escape whatever its cancel handler does.
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("Escape");
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await dialog.isVisible()).toBe(true);
    expect(await agentMessages(page)).toEqual([]);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Allow once");
    await page.keyboard.press("Enter");
    await expect.poll(() => agentMessages(page)).toEqual(["Wrote it."]);
    expect(await page.getByRole("dialog").count()).toBe(0);
  });

  it("tells a screen reader that the connection dropped while it is open, and the answer still goes", async () => {
    rig.mock.setScript("dialog-offline", [writeStep("/workspace/offline.md"), { text: "Wrote it offline." }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Write it [[mock:dialog-offline]]");
    const dialog = page.getByRole("dialog", { name: "Write /workspace/offline.md" });
    await dialog.waitFor();
    cut(3000);
    await expect.poll(() => page.locator(".topbar [role=status]").innerText()).toMatch(/^Reconnecting…/);
    // The modal dialog makes the rest of the page inert, the top bar's status line with it.
    await expect.poll(async () => (await accessibleTexts(page)).some((t) => t.startsWith("Reconnecting…"))).toBe(true);
    await dialog.getByRole("button", { name: "Allow once", exact: true }).click();
    await expect.poll(() => agentMessages(page), { timeout: 20_000 }).toEqual(["Wrote it offline."]);
  });

  it("moves to another page of the session when this one drops, and closes here once the turn ended while this page was offline", async () => {
    rig.mock.setScript("dialog-away", [writeStep("/workspace/away.md"), { text: "Not written." }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Write while I am away [[mock:dialog-away]]");
    await page.getByRole("dialog", { name: "Write /workspace/away.md" }).waitFor();
    // Another browser, straight to the service (not through the relay), watches the same session.
    const other = (await rig.page()).page;
    await signIn(other, `${rig.server.url}/`, rig.key);
    await other.getByRole("list", { name: "Sessions", exact: true }).getByRole("button", { name: /Write while I am away/ }).click();
    await other.getByText("Turn running").waitFor();
    expect(await other.getByRole("dialog").count()).toBe(0);
    cut(4000);
    await expect.poll(() => page.locator(".topbar [role=status]").innerText()).toMatch(/^Reconnecting…/);
    // The editor that was asked is gone, so the one still attached is asked; its answer ends the turn while this page is away.
    const moved = other.getByRole("dialog", { name: "Write /workspace/away.md" });
    await moved.getByRole("button", { name: "Deny", exact: true }).click({ timeout: 10_000 });
    await other.getByText("Turn running").waitFor({ state: "detached" });
    await expect.poll(() => page.locator(".topbar [role=status]").innerText(), { timeout: 20_000 }).toBe("Connected");
    await expect.poll(() => agentMessages(page)).toEqual(["Not written."]);
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
    expect(rig.mock.calls("dialog-away")).toHaveLength(2);
  });
});

describe("two requests at once", () => {
  it("keeps the question the user is answering open when a permission request arrives from another session", async () => {
    rig.mock.setScript("dialog-later-write", [writeStep("/workspace/later.md", { firstTokenDelayMs: 6000 }), { text: "Wrote it later." }]);
    rig.mock.setScript("dialog-ask", [{ toolCalls: [{ name: "clarify", arguments: { question: "Which colour?" } }] }, { text: "Blue it is." }]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Write later [[mock:dialog-later-write]]");
    await newSession(page);
    await send(page, "Ask me [[mock:dialog-ask]]");
    const question = page.getByRole("dialog", { name: "Which colour?" });
    const answer = question.getByRole("textbox", { name: "Answer", exact: true });
    await answer.fill("blue, the light");
    // The other session's permission request has been sent to the page.
    await expect.poll(() => rig.mock.calls("dialog-later-write")[0]?.endAt, { timeout: 20_000 }).toBeDefined();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await question.isVisible()).toBe(true);
    expect(await answer.inputValue()).toBe("blue, the light");
    await answer.press("Enter");
    const permission = page.getByRole("dialog", { name: "Write /workspace/later.md" });
    await permission.getByRole("button", { name: "Allow once", exact: true }).click();
    await expect.poll(() => agentMessages(page)).toEqual(["Blue it is."]);
    const asked = rig.mock.calls("dialog-ask")[1]!.body.messages.find((m) => m.role === "tool");
    expect(String(asked?.content)).toBe("The user answered: blue, the light");
    await expect.poll(() => rig.mock.calls("dialog-later-write").length).toBe(2);
    expect(errors).toEqual([]);
  });
});

describe("an Enter pressed twice to answer a dialog", () => {
  const prompt = (page: Page) => page.getByRole("textbox", { name: "Prompt", exact: true });
  const userPrompts = (page: Page) => page.locator(".msg-user .prompt-text").allInnerTexts();

  /**
   * The user sends a prompt and starts typing the next one; the dialog takes focus. Once it is
   * answered with Enter, focus goes back to the draft: a second Enter right after (or the key
   * held down) is part of answering, and must neither send the draft nor change it.
   */
  async function answerTwice(page: Page, answer: () => Promise<void>, reply: string): Promise<void> {
    await answer();
    await page.keyboard.press("Enter");
    await page.keyboard.down("Enter");
    await page.keyboard.down("Enter"); // the key held: a repeat
    await page.keyboard.up("Enter");
    await page.keyboard.press("Shift+Enter");
    await expect.poll(() => agentMessages(page)).toEqual([reply]);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("prompt");
    expect(await prompt(page).inputValue()).toBe("the next one");
    expect(await userPrompts(page)).toHaveLength(1);
    // A deliberate Enter, later, still sends.
    await new Promise((r) => setTimeout(r, 1000));
    await page.keyboard.press("Enter");
    await expect.poll(() => userPrompts(page)).toHaveLength(2);
    expect(await prompt(page).inputValue()).toBe("");
  }

  it("does not send the draft in the prompt box after answering a permission with Enter", async () => {
    rig.mock.setScript("dialog-enter-allow", [writeStep("/workspace/enter.md", { firstTokenDelayMs: 1500 }), { text: "Wrote it." }]);
    rig.mock.setScript("dialog-enter-next", [{ text: "Next done." }]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await prompt(page).fill("Write it [[mock:dialog-enter-allow]]");
    await page.keyboard.press("Enter");
    await prompt(page).fill("the next one");
    const dialog = page.getByRole("dialog", { name: "Write /workspace/enter.md" });
    await dialog.waitFor();
    await answerTwice(
      page,
      async () => {
        await page.keyboard.press("Tab");
        expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Allow once");
        await page.keyboard.press("Enter");
      },
      "Wrote it.",
    );
    expect(errors).toEqual([]);
  });

  it("does not send the draft in the prompt box after submitting a question's answer with Enter", async () => {
    rig.mock.setScript("dialog-enter-ask", [
      { firstTokenDelayMs: 1500, toolCalls: [{ name: "clarify", arguments: { question: "Which name?" } }] },
      { text: "Named." },
    ]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await prompt(page).fill("Ask me [[mock:dialog-enter-ask]]");
    await page.keyboard.press("Enter");
    await prompt(page).fill("the next one");
    const dialog = page.getByRole("dialog", { name: "Which name?" });
    await dialog.waitFor();
    await answerTwice(
      page,
      async () => {
        await dialog.getByRole("textbox", { name: "Answer", exact: true }).fill("Ada");
        await page.keyboard.press("Enter");
      },
      "Named.",
    );
    expect(String(rig.mock.calls("dialog-enter-ask")[1]!.body.messages.find((m) => m.role === "tool")?.content)).toBe("The user answered: Ada");
    expect(errors).toEqual([]);
  });
});
