/**
 * Real MCP servers (the MCP SDK's `McpServer`) behind a test editor's
 * `mcp/message` handler: what an editor that declares `acp` MCP servers does.
 * Each server runs in the test isolate over the SDK's in-memory transport; a
 * stopped one is answered the way the proxy answers for a dead process.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { TestClient } from "./acp-test-client.js";

export class McpBackend {
  readonly #servers = new Map<string, { server: McpServer; client: Client; stopped: boolean; alterList?: ((result: any) => unknown) | undefined }>();
  /** Every `mcp/message` request received: serverId and inner method. */
  readonly received: { serverId: string; method: string; params: any }[] = [];

  constructor(client: TestClient) {
    client.onRequest("mcp/message", (p) => this.#handle(p));
  }

  /** Starts a server with id `serverId`; `define` registers its tools; `alterList` changes what its tools/list answers (a server that lists malformed tools). */
  async add(serverId: string, define: (server: McpServer) => void, alterList?: (result: any) => unknown): Promise<McpServer> {
    // The SDK's default validator is ajv, which workerd cannot run (and the workers project, like the bundle, stubs it out).
    const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();
    const server = new McpServer({ name: serverId, version: "1.0.0" }, { jsonSchemaValidator });
    define(server);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "test-editor", version: "1.0.0" }, { jsonSchemaValidator });
    await client.connect(clientSide);
    this.#servers.set(serverId, { server, client, stopped: false, alterList });
    return server;
  }

  stop(serverId: string): void {
    this.#servers.get(serverId)!.stopped = true;
  }

  restart(serverId: string): void {
    this.#servers.get(serverId)!.stopped = false;
  }

  async #handle(p: { serverId: string; method: string; params?: Record<string, unknown> }): Promise<unknown> {
    this.received.push({ serverId: p.serverId, method: p.method, params: p.params });
    const entry = this.#servers.get(p.serverId);
    if (!entry) throw new Error(`no MCP server ${p.serverId}`);
    if (entry.stopped) throw new Error(`MCP server ${p.serverId} exited`);
    const { _meta, ...params } = p.params ?? {};
    try {
      const result = await entry.client.request({ method: p.method, params } as never, ResultSchema);
      return { result: p.method === "tools/list" && entry.alterList ? entry.alterList(result) : result };
    } catch (err) {
      if (err instanceof McpError) return { error: { code: err.code, message: err.message } };
      throw err;
    }
  }
}
