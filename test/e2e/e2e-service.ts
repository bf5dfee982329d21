/**
 * The e2e suites' fixture: one mock model and one `wrangler dev` shared by the
 * files listed in `SHARED_TOKENS`. The e2e project runs its files one after
 * another in one process (`isolate: false`), so the pair is started by the
 * first file that asks and lives until the process ends; a start costs ~7 s
 * of CPU, more than most files' tests.
 *
 * Each file gets its own tenant, so its session lists and usage never hold
 * another file's; the mock is reset when a file starts (its scripts and
 * recorded calls are the file's own), and the file's clients are closed when
 * it ends. Files whose Worker variables cannot be shared start their own
 * server with `e2eVars` (restart, upstream, service's keyless server).
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import { startMockOpenAI, type MockOpenAI } from "../support/mock-openai.js";
import { startDevServer, stopWithProcess, type DevServer } from "../support/wrangler-dev.js";

/** Anything a file opened that must be closed when the file ends. */
export interface Closable {
  close(): Promise<void>;
}

export interface E2eService {
  readonly mock: MockOpenAI;
  readonly server: DevServer;
  /** Clients to close after the file's tests. */
  readonly clients: Closable[];
}

/** The Worker variables an e2e suite with its own server starts `wrangler dev` with: the mock model and one tenant's token. */
export function e2eVars(mockUrl: string, token: string): Record<string, string> {
  return { OPENAI_BASE_URL: `${mockUrl}/v1`, OPENAI_API_KEY: "e2e-key", HERMES_EDGE_TOKENS: `e2e:${token}`, HERMES_MODEL: "mock-model" };
}

/** The shared server's tokens, one tenant per file (http-transport has a second one, "other", for its other-tenant 404). */
const SHARED_TOKENS: Readonly<Record<string, string>> = {
  "tok-e2e": "e2e-service",
  "tok-e2e-tools": "e2e-tools",
  "e2e-http-token": "e2e-http",
  "e2e-http-other": "other",
  "tok-mcp-e2e": "e2e-mcp",
  "tok-proxy-e2e": "e2e-proxy",
  "tok-upstream-proxy-e2e": "e2e-upstream-proxy",
  "tok-keys-e2e": "e2e-keys",
};

/** keys.e2e.test.ts's admin token (the `npm run keys` CLI reads it from a scratch `.dev.vars`). */
export const SHARED_ADMIN_TOKEN = "e2e-admin-token";

/** The shared server's MCP call timeout: mcp.e2e.test.ts's progress tests run in seconds against it. */
export const SHARED_MCP_CALL_TIMEOUT_MS = 2_000;

/** The shared server's upstream timeout: upstream-proxy.e2e.test.ts's hang test names it. */
export const SHARED_ACP_UPSTREAM_TIMEOUT_MS = 10_000;

/**
 * The union of what the sharing files need; each setting changes nothing the other files' tests look at:
 * - HERMES_COALESCE_MS=0 (http-transport, proxy): every model chunk is its own update, so a resume can span more
 *   than the 512-event buffer and a frame count lands mid-turn predictably. The other files compare joined text,
 *   and their frame counts (mcp, upstream-proxy) fall before any model chunk.
 * - HERMES_ALLOW_PRIVATE_MCP, HERMES_MCP_CALL_TIMEOUT_MS (mcp): only MCP servers read them; no other file has one.
 * - HERMES_ACP_UPSTREAM_TIMEOUT_MS (upstream-proxy): only upstream agents read it; no other file uses one.
 *   10 s, not 3: under load (2 cores, load 9) the proxy-started fake agent took over 3 s to answer initialize.
 * - HERMES_ADMIN_TOKEN (keys): only /v1/admin reads it.
 */
function sharedVars(mockUrl: string): Record<string, string> {
  return {
    OPENAI_BASE_URL: `${mockUrl}/v1`,
    OPENAI_API_KEY: "e2e-key",
    HERMES_MODEL: "mock-model",
    HERMES_EDGE_TOKENS: Object.entries(SHARED_TOKENS).map(([token, tenant]) => `${tenant}:${token}`).join(","),
    HERMES_ADMIN_TOKEN: SHARED_ADMIN_TOKEN,
    HERMES_COALESCE_MS: "0",
    HERMES_ALLOW_PRIVATE_MCP: "1",
    HERMES_MCP_CALL_TIMEOUT_MS: String(SHARED_MCP_CALL_TIMEOUT_MS),
    HERMES_ACP_UPSTREAM_TIMEOUT_MS: String(SHARED_ACP_UPSTREAM_TIMEOUT_MS),
  };
}

interface Shared {
  mock: MockOpenAI;
  server: DevServer;
}

let shared: Promise<Shared> | undefined;

/** The shared pair, started on first use; a failed start is forgotten, so the next file tries again. */
function sharedService(): Promise<Shared> {
  shared ??= startShared().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

async function startShared(): Promise<Shared> {
  const mock = await startMockOpenAI();
  try {
    const server = await startDevServer({ vars: sharedVars(mock.url) });
    stopWithProcess(server);
    return { mock, server };
  } catch (error) {
    await mock.close();
    throw error;
  }
}

/**
 * The shared mock and server for the calling file, whose clients authenticate with `token` (a key of
 * `SHARED_TOKENS`). Call it at the top of the file: its `beforeAll` runs before the file's own.
 */
export function useE2eService(token: string): E2eService {
  if (!(token in SHARED_TOKENS)) throw new Error(`${token} is not one of the shared e2e server's tokens (SHARED_TOKENS in test/e2e/e2e-service.ts)`);
  let current: Shared | undefined;
  const clients: Closable[] = [];
  beforeAll(async () => {
    current = await sharedService();
    // One file's crash of wrangler dev (see scripts/lib/wrangler-fixes.ts) fails that file, not every one after it.
    await current.server.ensureRunning();
    // Scripts and recorded calls are the mock's, not the file's: start from none.
    current.mock.reset();
  });
  afterEach(({ task }) => {
    // What the shared server was doing: a failed or timed-out test's report says whether its requests arrived.
    if (task.result?.state === "fail" && current) {
      process.stderr.write(`\n--- ${task.name}: the shared wrangler dev's last output ---\n${current.server.output()}\n--- end ---\n`);
    }
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) await c.close();
  });
  const started = (): Shared => {
    if (!current) throw new Error("the e2e service is not started (use it inside a test)");
    return current;
  };
  return {
    get mock() {
      return started().mock;
    },
    get server() {
      return started().server;
    },
    clients,
  };
}
