/**
 * The one mock model, `wrangler dev` and Chromium that the browser test files
 * share. The browser project is not isolated (vitest.config.ts), so its files
 * run one after another in one worker and this module's state lives from file
 * to file: the first file starts the rig for a set of variables, the others
 * reuse it. A start costs ~8 s of wall and CPU on two cores; per file, only
 * browser contexts and a TCP relay are left to open (web-session.ts).
 *
 * The rig lives until the worker process ends (`stopWithProcess`).
 * @module
 */
import type { Browser } from "playwright-core";
import { startMockOpenAI, type MockOpenAI } from "../../support/mock-openai.js";
import { startDevServer, stopWithProcess, type DevServer } from "../../support/wrangler-dev.js";
import { launchChromium } from "./chromium.js";

export interface SharedRig {
  readonly mock: MockOpenAI;
  readonly server: DevServer;
  readonly browser: Browser;
  /** Script keys set by the files so far: a turn one of them left running could take a later file's steps. */
  readonly scriptKeys: Map<string, string>;
}

const rigs = new Map<string, Promise<SharedRig>>();

/**
 * The rig for `vars`, started by the first caller. A start that failed is tried again by the next,
 * and a `wrangler dev` that exited on its own since the last caller is started again, so one file's
 * crash of it fails that file, not every one after it.
 */
export async function sharedRig(vars: Record<string, string>): Promise<SharedRig> {
  const id = JSON.stringify(Object.entries(vars).sort(([a], [b]) => a.localeCompare(b)));
  let rig = rigs.get(id);
  if (!rig) {
    rig = startSharedRig(vars);
    rigs.set(id, rig);
    rig.catch(() => rigs.delete(id));
  }
  const started = await rig;
  await started.server.ensureRunning();
  return started;
}

async function startSharedRig(vars: Record<string, string>): Promise<SharedRig> {
  const mock = await startMockOpenAI();
  const server = await startDevServer({ vars: { OPENAI_BASE_URL: `${mock.url}/v1`, ...vars } });
  stopWithProcess(server);
  let browser: Browser;
  try {
    browser = await launchChromium(); // Playwright ends it at exit itself
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { mock, server, browser, scriptKeys: new Map() };
}
