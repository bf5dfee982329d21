/**
 * Questions from the agent in the web client: the `clarify` tool's
 * `elicitation/create` shown as a dialog in real Chromium against
 * `wrangler dev` and the mock model, and what the model reads back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/screenshots.js";
import { agentMessages, newSession, send, signIn, startWebRig, type WebRig } from "./support/web-session.js";

let rig: WebRig;

beforeAll(async () => {
  rig = await startWebRig("questions");
});

afterAll(async () => {
  await rig?.stop();
});

describe("questions from the agent (clarify)", () => {
  /** What the model read as the clarify tool's result, on its call after asking. */
  function toolResult(key: string): string {
    const calls = rig.mock.calls(key);
    expect(calls).toHaveLength(2);
    const tool = calls[1]!.body.messages.find((m) => m.role === "tool");
    return String(tool?.content);
  }

  it("offers clarify, asks in a dialog, and gives the model the picked answer", async () => {
    rig.mock.setScript("web-ask", [
      { toolCalls: [{ name: "clarify", arguments: { question: "Which database should I use?", choices: ["Postgres", "SQLite"] } }] },
      { text: "SQLite it is." },
    ]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Set up storage [[mock:web-ask]]");
    const dialog = page.getByRole("dialog", { name: "Which database should I use?" });
    await dialog.waitFor();
    // The page advertised elicitation.form, so the service offered the tool.
    const tools = (rig.mock.calls("web-ask")[0]!.body.tools ?? []) as Array<{ function: { name: string } }>;
    expect(tools.map((t) => t.function.name)).toContain("clarify");
    const answer = dialog.getByRole("radiogroup", { name: "Answer" });
    expect(await answer.getByRole("radio").count()).toBe(2);
    expect(await dialog.getByRole("radio", { name: "Postgres", exact: true }).getAttribute("required")).not.toBeNull();
    expect(await dialog.getByRole("button").allInnerTexts()).toEqual(["Submit", "Decline", "Cancel"]);
    // Focus is on the question, not in a field: keys meant for the prompt box answer nothing.
    const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`);
    await expect.poll(focused).toBe("H2 Which database should I use?");
    await page.keyboard.type("x");
    await page.keyboard.press("Enter");
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.getByRole("textbox", { name: "Other", exact: true }).inputValue()).toBe("");
    // Submitting with nothing picked is stopped by the browser: the answer is required.
    await dialog.getByRole("button", { name: "Submit", exact: true }).click();
    expect(await dialog.isVisible()).toBe(true);
    // Keyboard: focus the radio group, pick with the arrow keys, type into "Other".
    await dialog.getByRole("radio", { name: "Postgres", exact: true }).focus();
    await page.keyboard.press("ArrowDown");
    expect(await dialog.getByRole("radio", { name: "SQLite", exact: true }).isChecked()).toBe(true);
    await dialog.getByRole("textbox", { name: "Other", exact: true }).fill("It is a small app");
    await screenshot(page, "12-question-dialog");
    await dialog.getByRole("textbox", { name: "Other", exact: true }).press("Enter");
    await expect.poll(() => agentMessages(page)).toEqual(["SQLite it is."]);
    expect(toolResult("web-ask")).toBe("The user answered: SQLite\nThey added: It is a small app");
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("tells the model the user declined", async () => {
    rig.mock.setScript("web-decline", [
      { toolCalls: [{ name: "clarify", arguments: { question: "What should the service be called?" } }] },
      { text: "I will pick a name myself." },
    ]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Name it [[mock:web-decline]]");
    const dialog = page.getByRole("dialog", { name: "What should the service be called?" });
    await dialog.getByRole("textbox", { name: "Answer", exact: true }).waitFor();
    await dialog.getByRole("button", { name: "Decline", exact: true }).click();
    await expect.poll(() => agentMessages(page)).toEqual(["I will pick a name myself."]);
    expect(toolResult("web-decline")).toMatch(/^The user declined to answer\./);
    expect(await page.getByRole("dialog").count()).toBe(0);
  });

  it("does not send an answer of only spaces: the browser asks for a real one", async () => {
    rig.mock.setScript("web-blank", [
      { toolCalls: [{ name: "clarify", arguments: { question: "What is the cache called?" } }] },
      { text: "Named." },
    ]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Name the cache [[mock:web-blank]]");
    const dialog = page.getByRole("dialog", { name: "What is the cache called?" });
    const answer = dialog.getByRole("textbox", { name: "Answer", exact: true });
    await answer.fill("   ");
    await answer.press("Enter");
    expect(await answer.evaluate((el) => (el as HTMLInputElement).validationMessage)).toBe("Enter an answer, not only spaces.");
    await new Promise((r) => setTimeout(r, 300));
    expect(await dialog.isVisible()).toBe(true);
    expect(rig.mock.calls("web-blank")).toHaveLength(1);
    await answer.fill(" hermes-cache ");
    await dialog.getByRole("button", { name: "Submit", exact: true }).click();
    await expect.poll(() => agentMessages(page)).toEqual(["Named."]);
    expect(toolResult("web-blank")).toBe("The user answered: hermes-cache");
    expect(errors).toEqual([]);
  });

  it("closes the dialog when the service withdraws the question (the turn is cancelled elsewhere)", async () => {
    rig.mock.setScript("web-withdraw", [{ toolCalls: [{ name: "clarify", arguments: { question: "Withdraw me?", choices: ["Yes"] } }] }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Ask and wait [[mock:web-withdraw]]");
    await page.getByRole("dialog", { name: "Withdraw me?" }).waitFor();
    // Another browser opens the same session and cancels its turn: the service sends $/cancel_request.
    const other = (await rig.page()).page;
    await signIn(other, rig.url, rig.key);
    await other.getByRole("list", { name: "Sessions", exact: true }).getByRole("button", { name: /Ask and wait/ }).click();
    await other.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await page.getByText("Turn cancelled.").waitFor();
    expect(rig.mock.calls("web-withdraw")).toHaveLength(1);
  });
});
