/**
 * A browser test file's share of the rig (shared-rig.ts: one mock model,
 * `wrangler dev` and Chromium for all files), and the steps the tests share
 * (sign in, start a session, send a prompt), all done through the page's
 * accessible names as a person would.
 * @module
 */
import type { BrowserContext, Page, Request, Response } from "playwright-core";
import type { MockOpenAI, MockStep } from "../../support/mock-openai.js";
import type { DevServer } from "../../support/wrangler-dev.js";
import { sharedRig } from "./shared-rig.js";
import { startTcpCutter, type TcpCutter } from "./tcp-cutter.js";

/** The browser test files: each signs in as its own tenant, so one file's session list never shows another's sessions. */
export type RigFile = "web-client" | "dialogs" | "first-run" | "questions" | "reconnect-answers" | "sessions" | "sharing" | "client-module";

const FILES: readonly RigFile[] = ["web-client", "dialogs", "first-run", "questions", "reconnect-answers", "sessions", "sharing", "client-module"];

/** The people of sharing's tenant (`web-sharing/ada`, `web-sharing/bob`), by token. */
export const SHARING_PEOPLE = { ada: "tok-ada-web", bob: "tok-bob-web" } as const;

const tenantOf = (file: RigFile) => `web-${file}`;
const keyOf = (file: RigFile) => `tok-web-${file}`;

/** Every file's tenant and key in one list, so all files share one var set and so one `wrangler dev`. */
const TOKENS = [
  ...FILES.map((file) => `${tenantOf(file)}:${keyOf(file)}`),
  ...Object.entries(SHARING_PEOPLE).map(([user, token]) => `${tenantOf("sharing")}/${user}:${token}`),
].join(",");

const VARS = { OPENAI_API_KEY: "browser-key", HERMES_EDGE_TOKENS: TOKENS, HERMES_MODEL: "mock-model" };

export interface WebRig {
  /** This file's tenant, e.g. `web-dialogs`. */
  tenant: string;
  /** The tenant's key (a token from HERMES_EDGE_TOKENS). */
  key: string;
  /** The shared mock, its scripts and calls forgotten when this file started. */
  mock: Pick<MockOpenAI, "url" | "setScript" | "calls">;
  server: Pick<DevServer, "url" | "wsUrl" | "port">;
  /** This file's own relay: a cut drops only this file's connections. */
  cutter: TcpCutter;
  /** The page's address: through the relay, so tests can cut its sockets. */
  url: string;
  /** A fresh browser profile (its own storage and OPFS) with one page, console errors collected. */
  page(): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
  /** Closes what this file opened (its browser contexts and relay); the shared rig lives on. */
  stop(): Promise<void>;
}

export async function startWebRig(file: RigFile): Promise<WebRig> {
  const { mock, server, browser, scriptKeys } = await sharedRig(VARS);
  mock.reset();
  const cutter = await startTcpCutter(server.port);
  const contexts: BrowserContext[] = [];
  return {
    tenant: tenantOf(file),
    key: keyOf(file),
    mock: {
      url: mock.url,
      setScript(key: string, steps: MockStep[]) {
        const owner = scriptKeys.get(key);
        // A turn an earlier file left running would take this file's steps for the same key.
        if (owner !== undefined && owner !== file) throw new Error(`mock script key "${key}" is already used by ${owner}.browser.test.ts: pick another`);
        scriptKeys.set(key, file);
        mock.setScript(key, steps);
      },
      calls: (key) => mock.calls(key),
    },
    server,
    cutter,
    url: `http://127.0.0.1:${cutter.port}/`,
    async page() {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ["clipboard-read", "clipboard-write"] });
      contexts.push(context);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      page.on("pageerror", (e) => errors.push(String(e)));
      pageErrors.set(page, errors);
      return { page, context, errors };
    },
    async stop() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await cutter.close();
    },
  };
}

/** Each rig page's console errors, so `openApp` can drop those of a load it repeats. */
const pageErrors = new WeakMap<Page, string[]>();

/** How long a page of the web client has to load before its load counts as lost. */
const APP_LOAD_MS = 15_000;
/** The app mounts as its module runs, before the page's load event; this much later it never will. */
const APP_MOUNT_MS = 5_000;

/**
 * Opens the web client at `url` and waits until it has mounted. Under load, wrangler dev's proxy
 * now and then fails one request ("Network connection lost" inside its ProxyWorker, the bug
 * `scripts/lib/wrangler-fixes.ts` keeps from killing wrangler), and a page whose `app.js` was
 * lost stays blank. Such a load is repeated once, only when a request of it failed or did not
 * finish, and the console errors it left are dropped; a page that stays blank fails with what failed.
 */
export async function openApp(page: Page, url: string): Promise<void> {
  const errors = pageErrors.get(page);
  const mark = errors?.length ?? 0;
  for (let attempt = 1; ; attempt++) {
    const lost: string[] = [];
    const onFailed = (request: Request) => lost.push(`${request.url()} (${request.failure()?.errorText ?? "failed"})`);
    const onResponse = (response: Response) => void (response.status() >= 500 && lost.push(`${response.url()} (HTTP ${response.status()})`));
    page.on("requestfailed", onFailed);
    page.on("response", onResponse);
    let loaded = false;
    try {
      await page.goto(url, { timeout: APP_LOAD_MS });
      loaded = true;
      // Preact may render beside the page's <noscript> rather than in its place.
      const mounted = () => [...(document.getElementById("app")?.children ?? [])].some((child) => child.tagName !== "NOSCRIPT");
      // With a request of this load lost, a page that has not mounted by its load event never will.
      if (lost.length > 0 && !(await page.evaluate(mounted))) throw new Error("the page loaded without its app");
      await page.waitForFunction(mounted, undefined, { timeout: APP_MOUNT_MS });
      return;
    } catch (err) {
      // A load that never finished has a request still pending: lost too.
      const hung = !loaded && err instanceof Error && err.name === "TimeoutError";
      if (attempt > 1 || (lost.length === 0 && !hung)) {
        // With nothing lost, the page's own errors (an exception in app.js, say) are all there is to say why.
        const seen = lost.length === 0 ? (errors?.slice(mark) ?? []) : [];
        const why = lost.length > 0 ? `; lost: ${lost.join(", ")}` : seen.length > 0 ? `; page errors: ${seen.join(" | ")}` : "";
        throw new Error(`the web client did not start at ${url}${why}`, { cause: err });
      }
      console.warn(`the web client's page at ${url} did not load (${lost.join(", ") || "a request did not finish"}); loading it again`);
      errors?.splice(mark);
    } finally {
      page.off("requestfailed", onFailed);
      page.off("response", onResponse);
    }
  }
}

export async function signIn(page: Page, url: string, key: string, remember = false): Promise<void> {
  await openApp(page, url);
  await page.getByLabel("Service key", { exact: true }).fill(key);
  if (remember) await page.getByLabel("Remember this browser").check();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
  await page.locator('ul[aria-label="Sessions"][aria-busy="false"]').waitFor({ state: "attached" });
}

/**
 * Starts a session and waits until it is the open one. The prompt box of the session open before
 * stays until `session/new` is answered: text sent meanwhile would go to that session.
 */
export async function newSession(page: Page, cwd = "/workspace"): Promise<void> {
  await page.getByLabel("Working directory", { exact: true }).fill(cwd);
  await page.getByRole("button", { name: "New session", exact: true }).click();
  const open = page.getByRole("list", { name: "Sessions", exact: true }).locator('[aria-current="true"]');
  await open.filter({ has: page.locator(".session-name", { hasText: /^New session$/ }) }).filter({ has: page.locator(".session-meta", { hasText: `${cwd} ·` }) }).waitFor();
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
