/**
 * First-run rough edges of the web client in real Chromium (issue 26).
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/screenshots.js";
import { newSession, openApp, signIn, startWebRig, type WebRig } from "./support/web-session.js";

let rig: WebRig;

beforeAll(async () => {
  rig = await startWebRig("first-run");
});

afterAll(async () => {
  await rig?.stop();
});

/** Milliseconds from a key's keydown until the page has painted after it. */
async function keyDelay(page: Page, selector: string, key: string): Promise<number> {
  await page.evaluate((sel) => {
    const el = document.querySelector(sel)!;
    const w = window as unknown as { __keyStart?: number; __keyDone?: Promise<number> };
    w.__keyDone = new Promise((resolve) => {
      el.addEventListener("keydown", () => void (w.__keyStart = performance.now()), { once: true, capture: true });
      el.addEventListener("input", () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - w.__keyStart!), 0)), { once: true });
    });
  }, selector);
  await page.focus(selector);
  await page.keyboard.press(key);
  return page.evaluate(() => (window as unknown as { __keyDone: Promise<number> }).__keyDone);
}

describe("the prompt box", () => {
  it("takes a 1 MB line pasted with Ctrl+V within seconds, keeps it beside the box, types a key within 100 ms and sends it all", async () => {
    rig.mock.setScript("web-long-line", [{ text: "Got the blob." }]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    const line = randomBytes(786_432).toString("base64");
    await page.evaluate((text) => navigator.clipboard.writeText(text), line);
    const prompt = page.getByRole("textbox", { name: "Prompt", exact: true });
    await prompt.focus();
    const started = Date.now();
    await page.keyboard.press("Control+V");
    const pasted = page.getByRole("list", { name: "Pasted texts" }).getByRole("listitem");
    await pasted.waitFor();
    const paste = Date.now() - started;
    expect(await pasted.locator("span").innerText()).toBe("Pasted text, 1 MB, one line");
    // Typed keys land in the box, each painted within 100 ms (the median of five, on a loaded machine).
    const keys: number[] = [];
    for (const key of "Decode") keys.push(await keyDelay(page, "#prompt", key));
    const median = [...keys].sort((a, b) => a - b)[2]!;
    console.log(`1 MB line: paste ${paste} ms, keys ${keys.map((k) => k.toFixed(0)).join(", ")} ms`);
    expect(paste).toBeLessThan(5_000);
    expect(median).toBeLessThan(100);
    await page.keyboard.type(" this [[mock:web-long-line]]");
    expect(await prompt.inputValue()).toBe("Decode this [[mock:web-long-line]]");
    await screenshot(page, "first-run-pasted-line");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect.poll(() => page.locator(".msg-agent .markdown").allInnerTexts()).toEqual(["Got the blob."]);
    const [call] = rig.mock.calls("web-long-line");
    expect(call!.body.messages.at(-1)!.content).toEqual([
      { type: "text", text: "Decode this [[mock:web-long-line]]" },
      { type: "text", text: line },
    ]);
    expect(await pasted.count()).toBe(0);
    expect(await prompt.inputValue()).toBe("");
    expect(errors).toEqual([]);
  });

  it("keeps a small paste in the box, a removed pasted text goes, and a large drop is kept aside like a paste", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    const prompt = page.getByRole("textbox", { name: "Prompt", exact: true });
    await page.evaluate((text) => navigator.clipboard.writeText(text), "small paste");
    await prompt.focus();
    await page.keyboard.press("Control+V");
    await expect.poll(() => prompt.inputValue()).toBe("small paste");
    await page.evaluate((text) => navigator.clipboard.writeText(text), "y".repeat(200_000));
    await page.keyboard.press("Control+V");
    const list = page.getByRole("list", { name: "Pasted texts" });
    await list.waitFor();
    await list.getByRole("button", { name: "Remove pasted text 1", exact: true }).click();
    await list.waitFor({ state: "detached" });
    expect(await prompt.inputValue()).toBe("small paste");
    // Text dragged in from another window: a drop event with its DataTransfer, as Chromium sends one.
    await prompt.evaluate((box, text) => {
      const dataTransfer = new DataTransfer();
      dataTransfer.setData("text/plain", text);
      box.dispatchEvent(new DragEvent("drop", { dataTransfer, bubbles: true, cancelable: true }));
    }, "z".repeat(200_000));
    await list.waitFor();
    expect(await list.getByRole("listitem").locator("span").innerText()).toBe("Pasted text, 195 KB, one line");
    expect(await prompt.inputValue()).toBe("small paste");
    expect(await keyDelay(page, "#prompt", "!")).toBeLessThan(1_000);
    expect(await prompt.inputValue()).toBe("small paste!");
  });
});

describe("the browser workspace", () => {
  const CWD = "/home/dev/project";
  /** The text of a file in the private file system folder that holds `CWD`. */
  const fileInCwd = (page: Page, ...names: string[]) =>
    page.evaluate(async (segments) => {
      let dir = await (await navigator.storage.getDirectory()).getDirectoryHandle("home%2Fdev%2Fproject");
      for (const name of segments.slice(0, -1)) dir = await dir.getDirectoryHandle(name);
      return (await (await dir.getFileHandle(segments.at(-1)!)).getFile()).text();
    }, names);

  it("serves the session's own working directory: the agent's write lands there and shows in the side panel", async () => {
    rig.mock.setScript("web-cwd-write", [
      { toolCalls: [{ name: "write_file", arguments: { path: `${CWD}/src/hello.txt`, content: "hello from hermes\n" } }] },
      { text: "Wrote it." },
    ]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page, CWD);
    const panel = page.getByRole("complementary", { name: "Workspace" });
    expect(await panel.locator("p code").first().innerText()).toBe(CWD);
    await page.getByRole("textbox", { name: "Prompt", exact: true }).fill("Write hello [[mock:web-cwd-write]]");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: `Write ${CWD}/src/hello.txt (new file)` });
    await dialog.waitFor();
    await screenshot(page, "first-run-cwd-permission");
    await dialog.getByRole("button", { name: "Allow once", exact: true }).click();
    await expect.poll(() => page.locator(".msg-agent .markdown").allInnerTexts()).toEqual(["Wrote it."]);
    expect(await fileInCwd(page, "src", "hello.txt")).toBe("hello from hermes\n");
    await panel.getByRole("list", { name: "Workspace files" }).getByRole("button", { name: "src/hello.txt", exact: true }).click();
    expect(await page.getByRole("region", { name: `Contents of ${CWD}/src/hello.txt` }).locator("pre").innerText()).toBe("hello from hermes\n");
    await screenshot(page, "first-run-cwd-written");
    // The default folder is another one: it does not hold the file.
    const inDefault = () =>
      page.evaluate(async () => (await navigator.storage.getDirectory()).getDirectoryHandle("workspace").then((d) => d.getDirectoryHandle("src")).then(() => "there", () => "absent"));
    expect(await inDefault()).toBe("absent");
    expect(errors).toEqual([]);
  });

  it("shows a failure in words in the permission dialog and the tool call, never JSON-RPC text", async () => {
    rig.mock.setScript("web-cwd-dir", [
      { toolCalls: [{ name: "write_file", arguments: { path: `${CWD}/docs`, content: "x\n" } }] },
      { text: "That is a folder." },
    ]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await page.evaluate(async () => {
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle("home%2Fdev%2Fproject", { create: true });
      await root.getDirectoryHandle("docs", { create: true });
    });
    await newSession(page, CWD);
    await page.getByRole("textbox", { name: "Prompt", exact: true }).fill("Write over docs [[mock:web-cwd-dir]]");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    const title = await dialog.getByRole("heading", { level: 2 }).innerText();
    expect(title).toBe(`Write ${CWD}/docs (its current content could not be read: ${CWD}/docs is a directory in the browser workspace)`);
    await dialog.getByRole("button", { name: "Allow once", exact: true }).click();
    await expect.poll(() => page.locator(".msg-agent .markdown").allInnerTexts()).toEqual(["That is a folder."]);
    const card = page.getByRole("article", { name: `Edit: Write ${CWD}/docs` });
    expect(await card.locator(".pill").innerText()).toBe("failed");
    await screenshot(page, "first-run-cwd-failure");
    expect(await page.locator("main").innerText()).not.toMatch(/Invalid params|\[-32\d{3}\]|"path":/);
  });
});

describe("signing in", () => {
  it("takes the tenant:token pair as .dev.vars writes it", async () => {
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, `${rig.tenant}:${rig.key}`);
    expect(await page.evaluate(() => sessionStorage.getItem("hermes-edge.key"))).toBe(rig.key);
    expect(errors).toEqual([]);
  });

  it("says what to paste for a key no WebSocket can carry, never shows it, and keeps the text inside the card", async () => {
    const { page } = await rig.page();
    await openApp(page, rig.url);
    expect(await page.locator("form.card p.small").innerText()).toBe(
      "Use a key made with npm run keys -- create (it starts with he_), or a token from HERMES_EDGE_TOKENS. It is kept in this tab only, or in this browser if you ask.",
    );
    const secret = `web:${"Zq9".repeat(30)} extra`;
    await page.getByLabel("Service key", { exact: true }).fill(secret);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toBe(
      "That is not a service key: it holds spaces or signs a key never has. Paste a managed key (it starts with he_; make one with npm run keys -- create) or, from HERMES_EDGE_TOKENS, the token after the colon.",
    );
    expect(await page.locator("body").innerText()).not.toContain("Zq9Zq9");
    const card = (await page.locator("form.card").boundingBox())!;
    for (const box of [await alert.boundingBox(), await page.locator("form.card p.small").boundingBox()]) {
      expect(box!.x + box!.width).toBeLessThanOrEqual(card.x + card.width);
    }
    await screenshot(page, "first-run-sign-in-refused");
  });
});

describe("the layout", () => {
  it("cuts a long title short of the Mode picker", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    const long = `Refactor_${"the_whole_module_".repeat(12)}now`;
    await page.getByRole("textbox", { name: "Prompt", exact: true }).fill(long);
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const heading = page.locator(".session-title h2");
    await expect.poll(() => heading.innerText()).toContain("Refactor_the_whole");
    const title = (await heading.boundingBox())!;
    const mode = (await page.locator(".picker").filter({ has: page.getByText("Mode", { exact: true }) }).boundingBox())!;
    const overlaps = title.x < mode.x + mode.width && mode.x < title.x + title.width && title.y < mode.y + mode.height && mode.y < title.y + title.height;
    expect(overlaps).toBe(false);
    expect(await heading.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await page.getByRole("combobox", { name: "Mode", exact: true }).isVisible()).toBe(true);
    await screenshot(page, "first-run-long-title");
  });

  it("shows a session on its way instead of the one open before, so a prompt typed meanwhile goes to the new one", async () => {
    rig.mock.setScript("web-starting-first", [{ text: "First done." }]);
    rig.mock.setScript("web-starting-next", [{ text: "Next done." }]);
    const { page, errors } = await rig.page();
    // The page's socket through a route that holds the answer to session/new until released.
    let holding = false;
    const held: (() => void)[] = [];
    const newIds = new Set<unknown>();
    await page.routeWebSocket(/\/acp/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        const frame = JSON.parse(String(message)) as { id?: unknown; method?: string };
        if (frame.method === "session/new") newIds.add(frame.id);
        server.send(message);
      });
      server.onMessage((message) => {
        const frame = JSON.parse(String(message)) as { id?: unknown; method?: string };
        if (holding && frame.method === undefined && newIds.has(frame.id)) held.push(() => ws.send(message));
        else ws.send(message);
      });
    });
    await signIn(page, rig.url, rig.key);
    await newSession(page, "/starting");
    const prompt = page.getByRole("textbox", { name: "Prompt", exact: true });
    await prompt.fill("First [[mock:web-starting-first]]");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect.poll(() => page.locator(".msg-agent .markdown").allInnerTexts()).toEqual(["First done."]);

    holding = true;
    await page.getByRole("button", { name: "New session", exact: true }).click();
    await expect.poll(() => held.length).toBe(1);
    // While it starts: no prompt box of the session before, and one click makes one session.
    await page.getByRole("status").filter({ hasText: "Starting a session" }).waitFor();
    expect(await page.getByRole("status").filter({ hasText: "Starting a session" }).innerText()).toContain("/starting");
    expect(await prompt.count()).toBe(0);
    expect(await page.getByRole("button", { name: "New session", exact: true }).isDisabled()).toBe(true);
    holding = false;
    held.shift()!();
    await prompt.fill("Next [[mock:web-starting-next]]");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect.poll(() => page.locator(".msg-agent .markdown").allInnerTexts()).toEqual(["Next done."]);
    const open = page.getByRole("list", { name: "Sessions", exact: true }).locator('[aria-current="true"] .session-name');
    expect(await open.innerText()).toBe("Next [[mock:web-starting-next]]");
    expect(rig.mock.calls("web-starting-first")).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it("calls a session without a title the same in the list and the header, and leaves no trail of empty ones", async () => {
    rig.mock.setScript("web-litter", [{ text: "Done." }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    const items = page.getByRole("list", { name: "Sessions" }).getByRole("listitem");
    const before = await items.count();
    for (let i = 0; i < 3; i++) await newSession(page, "/litter");
    await expect.poll(() => items.count()).toBe(before + 1);
    expect(await items.first().locator(".session-name").innerText()).toBe("New session");
    expect(await page.locator(".session-title h2").innerText()).toBe("New session");
    await page.getByRole("textbox", { name: "Prompt", exact: true }).fill("First prompt [[mock:web-litter]]");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect.poll(() => page.locator(".msg-agent .markdown").allInnerTexts()).toEqual(["Done."]);
    // Once used, the next click starts a new one; in another folder, too.
    await newSession(page, "/litter");
    await expect.poll(() => items.count()).toBe(before + 2);
    await newSession(page, "/elsewhere");
    await expect.poll(() => items.count()).toBe(before + 3);
    await page.getByRole("button", { name: "Refresh sessions", exact: true }).click();
    await expect.poll(() => items.count()).toBe(before + 3);
    await screenshot(page, "first-run-session-list");
  });
});
