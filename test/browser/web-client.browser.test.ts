/**
 * The web client at `/` in real Chromium against `wrangler dev` and the mock
 * model: every control found by its accessible name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./support/screenshots.js";
import { agentMessages, newSession, openApp, send, signIn, startWebRig, type WebRig } from "./support/web-session.js";

let rig: WebRig;

beforeAll(async () => {
  rig = await startWebRig("web-client");
});

afterAll(async () => {
  await rig?.stop();
});

describe("signing in", () => {
  it("shows the service's reason for a wrong key and stays on the form", async () => {
    const { page } = await rig.page();
    await openApp(page, rig.url);
    await screenshot(page, "01-sign-in");
    await page.getByLabel("Service key", { exact: true }).fill("not-the-key");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toBe("The service refused the key: unknown token");
    expect(await page.getByLabel("Service key", { exact: true }).isVisible()).toBe(true);
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length])).toEqual([0, 0]);
    await screenshot(page, "02-wrong-key");
  });

  it("keeps the key in sessionStorage, or in localStorage when asked to remember this browser", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    expect(await page.evaluate(() => [sessionStorage.getItem("hermes-edge.key"), localStorage.getItem("hermes-edge.key")])).toEqual([rig.key, null]);
    await page.reload();
    await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await signIn(page, rig.url, rig.key, true);
    expect(await page.evaluate(() => [sessionStorage.getItem("hermes-edge.key"), localStorage.getItem("hermes-edge.key")])).toEqual([null, rig.key]);
    expect(page.url()).toBe(rig.url);
  });
});

describe("a session", () => {
  it("streams an answer as markdown with the thought folded away", async () => {
    rig.mock.setScript("web-stream", [
      { reasoning: "Thinking about greetings.", chunks: ["## Hello", " from the edge\n\n", "Some **bold** text and `code`."], chunkDelayMs: 30 },
    ]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Say hello [[mock:web-stream]]");
    await page.getByRole("heading", { name: "Hello from the edge" }).waitFor();
    await expect.poll(() => agentMessages(page)).toEqual(["Hello from the edge\n\nSome bold text and code."]);
    expect(await page.locator(".msg-agent strong").innerText()).toBe("bold");
    const thought = page.locator("details.thought");
    expect(await thought.getAttribute("open")).toBeNull();
    expect(await thought.locator("summary").innerText()).toBe("Thought");
    await screenshot(page, "03-streamed-answer");
    expect(errors).toEqual([]);
  });
});

describe("prompts with images and settings", () => {
  // A 1×1 PNG.
  const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

  it("sends an attached image as an image block", async () => {
    rig.mock.setScript("web-image", [{ text: "A tiny image." }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await page.locator(".prompt-box input[type=file]").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
    await page.getByRole("list", { name: "Attached images" }).getByRole("img", { name: "dot.png" }).waitFor();
    await send(page, "What is this? [[mock:web-image]]");
    await expect.poll(() => agentMessages(page)).toEqual(["A tiny image."]);
    const [call] = rig.mock.calls("web-image");
    expect(call!.body.messages.at(-1)!.content).toEqual([
      { type: "text", text: "What is this? [[mock:web-image]]" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
    ]);
    expect(await page.locator(".msg-user img.prompt-image").count()).toBe(1);
    expect(await page.getByRole("list", { name: "Attached images" }).count()).toBe(0);
  });

  it("switches the mode with the session's config picker", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    const mode = page.getByRole("combobox", { name: "Mode", exact: true });
    await mode.selectOption({ label: "Read only" });
    await send(page, "/mode");
    await expect.poll(async () => (await agentMessages(page)).join("")).toMatch(/read_only/);
    expect(await mode.inputValue()).toBe("read_only");
  });
});

describe("the browser workspace", () => {
  async function uploadNotes(page: import("playwright-core").Page, text: string): Promise<void> {
    await page.locator("aside.workspace input[type=file]").setInputFiles({ name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from(text) });
    await page.getByRole("list", { name: "Workspace files" }).getByRole("button", { name: "notes.md", exact: true }).waitFor();
  }

  const opfsText = (page: import("playwright-core").Page) =>
    page.evaluate(async () => {
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle("workspace");
      return (await (await root.getFileHandle("notes.md")).getFile()).text();
    });

  it("says why the file list could not be read, and lists the files once the user tries again", async () => {
    const { page, errors } = await rig.page();
    await openApp(page, rig.url);
    // A file named "workspace" where the workspace's folder belongs: the browser refuses to open it as one.
    await page.evaluate(async () => {
      await (await navigator.storage.getDirectory()).getFileHandle("workspace", { create: true });
    });
    await signIn(page, rig.url, rig.key);
    const alert = page.locator("aside.workspace").getByRole("alert");
    await alert.waitFor();
    expect(await alert.locator("p").innerText()).toBe(
      'Could not list the workspace files. This site\'s private file system holds a file named "workspace" where the folder for /workspace belongs.',
    );
    expect(await page.locator("aside.workspace").getByText("No files yet.").count()).toBe(0);
    await page.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      await root.removeEntry("workspace");
      const notes = await (await root.getDirectoryHandle("workspace", { create: true })).getFileHandle("notes.md", { create: true });
      const writable = await notes.createWritable();
      await writable.write("kept\n");
      await writable.close();
    });
    await alert.getByRole("button", { name: "Try again", exact: true }).click();
    await page.getByRole("list", { name: "Workspace files" }).getByRole("button", { name: "notes.md", exact: true }).waitFor();
    expect(await alert.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("lets write_file change a file after asking in a dialog, and shows the diff", async () => {
    rig.mock.setScript("web-write", [
      { toolCalls: [{ name: "write_file", arguments: { path: "/workspace/notes.md", content: "# Notes\n\nhello from hermes\n" } }] },
      { text: "I rewrote `notes.md`." },
    ]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await uploadNotes(page, "# Notes\n\nold line\n");
    await newSession(page);
    await send(page, "Rewrite my notes [[mock:web-write]]");
    const dialog = page.getByRole("dialog", { name: "Write /workspace/notes.md" });
    await dialog.waitFor();
    expect(await dialog.getByRole("button").allInnerTexts()).toEqual(["Allow once", "Allow for this session", "Always allow in this project", "Deny"]);
    const diff = dialog.getByRole("table", { name: "Changes to /workspace/notes.md" });
    expect(await diff.locator("tr.diff-del td.code").allInnerTexts()).toEqual(["old line"]);
    expect(await diff.locator("tr.diff-add td.code").allInnerTexts()).toEqual(["hello from hermes"]);
    await screenshot(page, "04-permission-dialog");
    // Focus is on the dialog's heading, not on "Allow once": an Enter meant for the prompt box answers nothing.
    const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`);
    await expect.poll(focused).toBe("H2 Write /workspace/notes.md");
    await page.keyboard.press("Enter");
    await new Promise((r) => setTimeout(r, 300));
    expect(await dialog.isVisible()).toBe(true);
    expect(await agentMessages(page)).toEqual([]);
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("BUTTON Allow once");
    await dialog.getByRole("button", { name: "Allow once", exact: true }).click();
    await expect.poll(() => agentMessages(page)).toEqual(["I rewrote notes.md."]);
    const card = page.getByRole("article", { name: "Edit: Write /workspace/notes.md" });
    expect(await card.locator(".pill").innerText()).toBe("done");
    expect(await card.locator("tr.diff-add td.code").allInnerTexts()).toEqual(["hello from hermes"]);
    expect(await opfsText(page)).toBe("# Notes\n\nhello from hermes\n");
    await page.getByRole("list", { name: "Workspace files" }).getByRole("button", { name: "notes.md", exact: true }).click();
    expect(await page.getByRole("region", { name: "Contents of /workspace/notes.md" }).locator("pre").innerText()).toBe("# Notes\n\nhello from hermes\n");
    await screenshot(page, "05-file-written");
    expect(errors).toEqual([]);
  });

  it("answers a read of a directory that it is a directory, and a missing file that it is not found", async () => {
    rig.mock.setScript("web-read-dir", [
      {
        toolCalls: [
          { id: "dir", name: "read_file", arguments: { path: "/workspace/docs" } },
          { id: "missing", name: "read_file", arguments: { path: "/workspace/docs/none.md" } },
        ],
      },
      { text: "Read them." },
    ]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await page.evaluate(async () => {
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle("workspace", { create: true });
      await root.getDirectoryHandle("docs", { create: true });
    });
    await newSession(page);
    await send(page, "Read the docs [[mock:web-read-dir]]");
    await expect.poll(() => agentMessages(page)).toEqual(["Read them."]);
    const read = Object.fromEntries(
      rig.mock.calls("web-read-dir")[1]!.body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]),
    );
    expect(read.dir).toMatch(/\/workspace\/docs is a directory in the browser workspace .*\[-32602\]/);
    expect(read.missing).toMatch(/File not found: \/workspace\/docs\/none\.md .*\[-32002\]/);
  });

  it("answers a write below a file that the file is not a directory, and leaves the file alone", async () => {
    rig.mock.setScript("web-write-below-file", [
      { toolCalls: [{ name: "write_file", arguments: { path: "/workspace/notes.md/inner.txt", content: "x\n" } }] },
      { text: "Could not write it." },
    ]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await uploadNotes(page, "keep me\n");
    await newSession(page);
    await send(page, "Write below the notes [[mock:web-write-below-file]]");
    const dialog = page.getByRole("dialog", { name: "Write /workspace/notes.md/inner.txt" });
    await dialog.getByRole("button", { name: "Allow once", exact: true }).click();
    await expect.poll(() => agentMessages(page)).toEqual(["Could not write it."]);
    const tool = rig.mock.calls("web-write-below-file")[1]!.body.messages.find((m) => m.role === "tool");
    expect(String(tool?.content)).toMatch(/\/workspace\/notes\.md is a file in the browser workspace, not a directory .*\[-32602\]/);
    await page.getByRole("list", { name: "Workspace files" }).getByRole("button", { name: "notes.md", exact: true }).click();
    expect(await page.getByRole("region", { name: "Contents of /workspace/notes.md" }).locator("pre").innerText()).toBe("keep me\n");
  });

  it("creates a new file, but neither replaces one that exists nor takes a name the browser cannot store", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await uploadNotes(page, "keep me\n");
    const name = page.getByLabel("New file", { exact: true });
    const create = page.getByRole("button", { name: "Create file", exact: true });
    await name.fill("notes.md");
    await create.click();
    const alert = page.locator("aside.workspace").getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toBe("/workspace/notes.md already exists in the browser workspace");
    expect(await opfsText(page)).toBe("keep me\n");
    expect(await name.inputValue()).toBe("notes.md");
    await name.fill("drafts\\today.md");
    await create.click();
    await expect.poll(() => alert.innerText()).toBe('/workspace/drafts\\today.md cannot be a file in the browser workspace: its names may not contain "\\".');
    await name.fill("today.md");
    await create.click();
    await page.getByRole("list", { name: "Workspace files" }).getByRole("button", { name: "today.md", exact: true }).waitFor();
    expect(await alert.count()).toBe(0);
  });

  it("keeps an open file's view up to date when the agent rewrites it, and closes it when the file is deleted", async () => {
    rig.mock.setScript("web-write-open", [
      { toolCalls: [{ name: "write_file", arguments: { path: "/workspace/notes.md", content: "rewritten\n" } }] },
      { text: "Rewrote it." },
    ]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await uploadNotes(page, "before\n");
    const files = page.getByRole("list", { name: "Workspace files" });
    await files.getByRole("button", { name: "notes.md", exact: true }).click();
    const view = page.getByRole("region", { name: "Contents of /workspace/notes.md" });
    expect(await view.locator("pre").innerText()).toBe("before\n");
    await newSession(page);
    await send(page, "Rewrite the notes [[mock:web-write-open]]");
    await page.getByRole("dialog").getByRole("button", { name: "Allow once", exact: true }).click();
    await expect.poll(() => agentMessages(page)).toEqual(["Rewrote it."]);
    await expect.poll(() => view.locator("pre").innerText()).toBe("rewritten\n");
    await files.getByRole("button", { name: "Delete /workspace/notes.md", exact: true }).click();
    await view.waitFor({ state: "detached" });
  });

  it("leaves the file alone when the user denies", async () => {
    rig.mock.setScript("web-deny", [
      { toolCalls: [{ name: "write_file", arguments: { path: "/workspace/notes.md", content: "overwritten\n" } }] },
      { text: "Understood, I left it." },
    ]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await uploadNotes(page, "keep me\n");
    await newSession(page);
    await send(page, "Overwrite my notes [[mock:web-deny]]");
    await page.getByRole("dialog").getByRole("button", { name: "Deny", exact: true }).click();
    await expect.poll(() => agentMessages(page)).toEqual(["Understood, I left it."]);
    expect(await page.getByRole("article", { name: "Edit: Write /workspace/notes.md" }).locator(".pill").innerText()).toBe("failed");
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(await opfsText(page)).toBe("keep me\n");
  });
});

describe("turns", () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i + 1} `);

  it("cancels a running turn", async () => {
    rig.mock.setScript("web-cancel", [{ chunks: words(400), chunkDelayMs: 40 }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Talk for a long time [[mock:web-cancel]]");
    await expect.poll(async () => (await agentMessages(page)).join("").includes("w3 ")).toBe(true);
    expect(await page.getByText("Turn running").isVisible()).toBe(true);
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.getByText("Turn cancelled.").waitFor();
    expect(await page.getByRole("button", { name: "Cancel", exact: true }).isDisabled()).toBe(true);
    expect(await page.getByText("Turn running").count()).toBe(0);
    const text = (await agentMessages(page)).join("");
    expect(text.length).toBeLessThan(words(400).join("").length);
  });

  it("shows a prompt sent during a turn as queued, then runs it", async () => {
    // 6 s of answer: under load a 1.6 s turn had ended before the second prompt went, which then ran at once.
    rig.mock.setScript("web-queue", [{ chunks: words(150), chunkDelayMs: 40 }]);
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "First [[mock:web-queue]]");
    await expect.poll(async () => (await agentMessages(page)).join("").includes("w2 ")).toBe(true);
    await send(page, "Second, after that");
    const queued = page.locator(".msg-user.is-queued");
    await queued.waitFor();
    expect(await queued.innerText()).toContain("Second, after that");
    expect(await queued.locator(".pill").textContent()).toBe("Queued");
    await screenshot(page, "06-queued-prompt");
    await expect.poll(() => agentMessages(page), { timeout: 30_000 }).toEqual([words(150).join("").trim(), "Echo: Second, after that"]);
    expect(await queued.count()).toBe(0);
  });

  it("reconnects after the socket is cut mid-turn and shows the full answer exactly once", async () => {
    const all = words(60);
    rig.mock.setScript("web-cut", [{ chunks: all, chunkDelayMs: 50 }]);
    const { page, errors } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    await send(page, "Stream through a network failure [[mock:web-cut]]");
    await expect.poll(async () => (await agentMessages(page)).join("").includes("w5 ")).toBe(true);
    rig.cutter.cut(1500);
    const status = page.getByRole("status");
    await expect.poll(() => status.innerText()).toMatch(/^Reconnecting…/);
    await screenshot(page, "07-reconnecting");
    await expect.poll(() => status.innerText(), { timeout: 20_000 }).toBe("Connected");
    await expect.poll(() => agentMessages(page), { timeout: 20_000 }).toEqual([all.join("").trim()]);
    await expect.poll(() => page.getByText("Turn running").count()).toBe(0);
    expect(await page.locator(".msg-user").count()).toBe(1);
    // Only the failed connection attempts during the outage may complain. After each one the client
    // asks `GET /acp` why (a revoked key must stop the retries); one that lands just as the network
    // is back gets the service's 426 "use a WebSocket", which the browser logs as a failed load.
    expect(errors.filter((e) => !/WebSocket|net::ERR_|status of 426/.test(e))).toEqual([]);
  });
});

describe("bad input", () => {
  it("refuses a 5 MB pasted prompt with the frame limit's message, and stays usable", async () => {
    const { page } = await rig.page();
    await signIn(page, rig.url, rig.key);
    await newSession(page);
    const big = "x".repeat(5 * 1024 * 1024);
    await page.evaluate((text) => navigator.clipboard.writeText(text), big);
    const prompt = page.getByRole("textbox", { name: "Prompt", exact: true });
    await prompt.focus();
    await page.keyboard.press("Control+V");
    // So large a paste is kept beside the box, not in it.
    await page.getByRole("list", { name: "Pasted texts" }).getByText("Pasted text, 5 MB, one line").waitFor();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.locator("span").innerText()).toBe(
      "This message is 5 MB, more than the 4 MB the service takes in one message. Send less at once: a shorter prompt, or the text as a file in the workspace.",
    );
    expect(await page.locator(".msg-user .pill").textContent()).toBe("Not sent");
    expect(await page.getByText("Turn running").count()).toBe(0);
    await screenshot(page, "08-frame-limit");
    await send(page, "still here?");
    await expect.poll(() => agentMessages(page)).toEqual(["Echo: still here?"]);
  });
});

describe("the rig's page load (openApp)", () => {
  it("loads the page again when wrangler dev lost its app.js, and keeps none of the lost load's console errors", async () => {
    const { page, errors } = await rig.page();
    let served = 0;
    await page.route("**/app.js", (route) => (served++ === 0 ? route.abort("connectionreset") : route.continue()));
    await openApp(page, rig.url);
    await page.getByLabel("Service key", { exact: true }).waitFor();
    expect(served).toBe(2);
    expect(errors).toEqual([]);
  });

  it("loads it once more only, then fails naming what was lost", async () => {
    const { page } = await rig.page();
    let served = 0;
    await page.route("**/app.js", (route) => {
      served++;
      return route.abort("connectionreset");
    });
    await expect(openApp(page, rig.url)).rejects.toThrow(/did not start at .*; lost: http:\/\/127\.0\.0\.1:\d+\/app\.js \(net::ERR_CONNECTION_RESET\)$/);
    expect(served).toBe(2);
  });

  it("does not load again, and names nothing lost, when the page loads whole and stays blank", async () => {
    const { page } = await rig.page();
    let served = 0;
    await page.route("**/app.js", (route) => {
      served++;
      return route.fulfill({ status: 200, contentType: "text/javascript", body: "" });
    });
    await expect(openApp(page, rig.url)).rejects.toThrow(/^the web client did not start at http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(served).toBe(1);
  });
});
