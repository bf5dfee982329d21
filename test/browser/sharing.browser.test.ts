/**
 * Sharing in the web client, in real Chromium: the Share dialog shares a
 * session with a user (who sees it marked "Shared with you"), and a viewer
 * link opened in a fresh browser context shows the live turn, read-only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/screenshots.js";
import { agentMessages, newSession, openApp, send, SHARING_PEOPLE, signIn, startWebRig, type WebRig } from "./support/web-session.js";

const { ada: ADA, bob: BOB } = SHARING_PEOPLE;
let rig: WebRig;

beforeAll(async () => {
  rig = await startWebRig("sharing");
});

afterAll(async () => {
  await rig?.stop();
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `v${i + 1} `);

describe("the Share dialog", () => {
  it("shares the open session with a user as Driver, lists them, and stops sharing", async () => {
    rig.mock.setScript("share-dialog", [{ text: "shared work" }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, ADA);
    await newSession(page, "/workspace/team");
    await send(page, "Shared session [[mock:share-dialog]]");
    await expect.poll(() => agentMessages(page)).toEqual(["shared work"]);

    await page.getByRole("button", { name: "Share", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Share this session" });
    await dialog.getByLabel("Share with").fill("bob");
    await dialog.getByLabel("Driver", { exact: true }).check();
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    const entries = dialog.getByRole("list", { name: "Shared with" }).getByRole("listitem");
    await expect.poll(() => entries.allInnerTexts()).toEqual([expect.stringMatching(/^bob\s*Driver\s*Stop sharing$/)]);
    await screenshot(page, "20-share-dialog");

    // Bob, in his own browser, sees it marked as shared with him, and may prompt (a driver).
    const { page: bob } = await rig.page();
    await signIn(bob, rig.url, BOB);
    const item = bob.getByRole("list", { name: "Sessions", exact: true }).getByRole("button", { name: /Shared session/ });
    await item.getByText("Shared with you").waitFor();
    await item.click();
    await bob.getByRole("textbox", { name: "Prompt", exact: true }).waitFor();
    // (The mark, not the mode picker's "Read only" mode.)
    expect(await bob.locator(".pill-readonly").count()).toBe(0);

    // Everyone in the team as viewers, then stop sharing with bob.
    await dialog.getByLabel("Everyone in the team").check();
    expect(await dialog.getByLabel("Share with").isDisabled()).toBe(true);
    await dialog.getByLabel("Viewer", { exact: true }).check();
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect.poll(() => entries.count()).toBe(2);
    await dialog.getByRole("button", { name: "Stop sharing with bob" }).click();
    await expect.poll(() => entries.allInnerTexts()).toEqual([expect.stringMatching(/^Everyone in the team\s*Viewer\s*Stop sharing$/)]);
  });
});

describe("a viewer link", () => {
  it("opened in a fresh browser context, shows the live turn read-only, without a key", async () => {
    // 16 s of answer: under load, sharing and opening the viewer took 9 s, and a shorter turn had ended by then.
    rig.mock.setScript("share-live", [{ chunks: words(200), chunkDelayMs: 80 }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, ADA);
    await newSession(page, "/workspace/live");
    await send(page, "Watch me [[mock:share-live]]");
    await page.getByText("Turn running").waitFor();

    await page.getByRole("button", { name: "Share", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Share this session" });
    await dialog.getByRole("button", { name: "Copy link", exact: true }).click();
    const link = await dialog.getByRole("textbox", { name: "Viewer link" }).inputValue();
    expect(new URL(link).hash).toMatch(/^#session=.+&link=hl_/);

    const { page: viewer, context } = await rig.page();
    expect(await context.cookies()).toEqual([]);
    await openApp(viewer, link);
    await viewer.locator(".pill-readonly").getByText("Read only", { exact: true }).waitFor();
    expect(await viewer.getByRole("textbox", { name: "Prompt", exact: true }).count()).toBe(0);
    expect(await viewer.getByRole("button", { name: "Share", exact: true }).count()).toBe(0);
    await viewer.getByText("Turn running").waitFor();
    const partway = (await agentMessages(viewer)).join("");
    await expect.poll(async () => (await agentMessages(viewer)).join("").length, { timeout: 30_000 }).toBeGreaterThan(partway.length);
    await screenshot(viewer, "21-viewer-link");
    await expect.poll(async () => (await agentMessages(viewer)).join(""), { timeout: 30_000 }).toContain("v200");
    expect(await viewer.locator(".msg-user .author").textContent()).toBe("ada");
  });
});

describe("a link that no longer works", () => {
  it("says on the page that it was revoked", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, ADA);
    await newSession(page, "/workspace/gone");
    const listed = await fetch(`${rig.server.url}/v1/sessions`, { headers: { Authorization: `Bearer ${ADA}` } }).then((r) => r.json() as Promise<{ sessions: { sessionId: string; cwd: string }[] }>);
    const id = listed.sessions.find((s) => s.cwd === "/workspace/gone")!.sessionId;
    const made = () =>
      fetch(`${rig.server.url}/v1/sessions/${id}/links`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ADA}`, "Content-Type": "application/json" },
        body: JSON.stringify({ role: "viewer" }),
      }).then((r) => r.json() as Promise<{ id: string; url: string }>);
    const revoked = await made();
    await fetch(`${rig.server.url}/v1/sessions/${id}/links/${revoked.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${ADA}` } });
    const { page: viewer } = await rig.page();
    await openApp(viewer, revoked.url.replace(rig.server.url, rig.url.replace(/\/$/, "")));
    expect(await viewer.getByRole("alert").innerText()).toBe("This link was revoked.");
  });
});

