/**
 * One wrangler dev + mock model + Chromium for a browser test file, and the
 * steps the tests share (sign in, start a session, send a prompt), all done
 * through the page's accessible names as a person would.
 * @module
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startMockOpenAI, type MockOpenAI } from "../../support/mock-openai.js";
import { startDevServer, type DevServer } from "../../support/wrangler-dev.js";
import { launchChromium } from "./chromium.js";
import { startTcpCutter, type TcpCutter } from "./tcp-cutter.js";

export const KEY = "tok-web";

export interface WebRig {
  mock: MockOpenAI;
  server: DevServer;
  cutter: TcpCutter;
  browser: Browser;
  /** The page's address: through the relay, so tests can cut its sockets. */
  url: string;
  /** A fresh browser profile (its own storage and OPFS) with one page, console errors collected. */
  page(): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
  stop(): Promise<void>;
}

export async function startWebRig(vars: Record<string, string> = {}): Promise<WebRig> {
  const mock = await startMockOpenAI();
  const server = await startDevServer({
    vars: {
      OPENAI_BASE_URL: `${mock.url}/v1`,
      OPENAI_API_KEY: "browser-key",
      HERMES_EDGE_TOKENS: `web:${KEY}`,
      HERMES_MODEL: "mock-model",
      ...vars,
    },
  });
  const cutter = await startTcpCutter(server.port);
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  return {
    mock,
    server,
    cutter,
    browser,
    url: `http://127.0.0.1:${cutter.port}/`,
    async page() {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ["clipboard-read", "clipboard-write"] });
      contexts.push(context);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      page.on("pageerror", (e) => errors.push(String(e)));
      return { page, context, errors };
    },
    async stop() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await cutter.close();
      await server.stop();
      await mock.close();
    },
  };
}

export async function signIn(page: Page, url: string, key = KEY, remember = false): Promise<void> {
  await page.goto(url);
  await page.getByLabel("Service key", { exact: true }).fill(key);
  if (remember) await page.getByLabel("Remember this browser").check();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
  await page.locator('ul[aria-label="Sessions"][aria-busy="false"]').waitFor({ state: "attached" });
}

export async function newSession(page: Page, cwd = "/workspace"): Promise<void> {
  await page.getByLabel("Working directory", { exact: true }).fill(cwd);
  await page.getByRole("button", { name: "New session", exact: true }).click();
  await page.getByRole("textbox", { name: "Prompt", exact: true }).waitFor();
}

export async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Prompt", exact: true }).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

/** The text of the agent's messages in the open conversation. */
export function agentMessages(page: Page): Promise<string[]> {
  return page.locator(".msg-agent .markdown").allInnerTexts();
}
