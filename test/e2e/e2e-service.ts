/**
 * The e2e suites' fixture: the mock model and `wrangler dev` started once per
 * file (in `beforeAll`), and every SDK client a test opened closed with them.
 */
import { afterAll, beforeAll } from "vitest";
import { startMockOpenAI, type MockOpenAI } from "../support/mock-openai.js";
import { startDevServer, type DevServer } from "../support/wrangler-dev.js";
import type { SdkClient } from "./sdk-client.js";

export interface E2eService {
  readonly mock: MockOpenAI;
  readonly server: DevServer;
  /** Clients to close after the file's tests. */
  readonly clients: SdkClient[];
}

/** The Worker variables every e2e suite starts `wrangler dev` with: the mock model and one tenant's token. */
export function e2eVars(mockUrl: string, token: string): Record<string, string> {
  return { OPENAI_BASE_URL: `${mockUrl}/v1`, OPENAI_API_KEY: "e2e-key", HERMES_EDGE_TOKENS: `e2e:${token}`, HERMES_MODEL: "mock-model" };
}

/** `extraVars` are added to (or override) `e2eVars`. */
export function useE2eService(token: string, extraVars: Record<string, string> = {}): E2eService {
  let mock: MockOpenAI | undefined;
  let server: DevServer | undefined;
  const clients: SdkClient[] = [];
  beforeAll(async () => {
    mock = await startMockOpenAI();
    server = await startDevServer({
      vars: { ...e2eVars(mock.url, token), ...extraVars },
    });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await server?.stop();
    await mock?.close();
  });
  return {
    get mock() {
      if (!mock) throw new Error("the e2e service is not started (use it inside a test)");
      return mock;
    },
    get server() {
      if (!server) throw new Error("the e2e service is not started (use it inside a test)");
      return server;
    },
    clients,
  };
}
