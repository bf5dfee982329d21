/**
 * A session's MCP servers. They belong to the connection that declared them
 * (in `session/new`, `load`, `resume` or `fork`), not to the session's
 * history: kept in memory per attached connection, declared again on each
 * attach. The model sees the tools of the servers of every attached
 * connection; a failure is told to that connection's editor as a notice and
 * never stops the session.
 */
import { isStdioEntry, MCP_MESSAGE, requestCancelled, type McpMessageParams, type McpServerEntry } from "@hermes-edge/protocol";
import { agentMessageChunk } from "../acp/updates.js";
import { delegateTaskTool } from "../delegate/delegate-task.js";
import { ALL_TOOLS } from "../tools/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolError, type AnyTool } from "../tools/tool.js";
import type { UpdateLog } from "../session/update-log.js";
import { acpLink } from "./acp-link.js";
import { connectHttp } from "./http-link.js";
import type { McpToolInfo } from "./mcp-link.js";
import { McpServer } from "./mcp-server.js";
import { mcpTool } from "./mcp-tool.js";
import type { McpToolDescriptor, SubagentMcp } from "./subagent-mcp.js";
import { mcpToolName, sanitizeName } from "./tool-name.js";

/** Read when first needed: the tool modules and this one import each other through delegation. */
const builtinNames = (): ReadonlySet<string> => new Set([...ALL_TOOLS, delegateTaskTool].map((t) => t.name));

interface Declared {
  server: McpServer;
  /** Set for `acp` servers: notifications are routed by it. */
  serverId?: string;
  /** The server's own usable tools, rebuilt whenever it lists them again; which of them are offered depends on who else is attached. */
  own: AnyTool[];
  /** Why the rest of its list is left out (invalid, a built-in's name, a repeat within the server). */
  problems: string[];
  listed: McpServer["tools"] | undefined;
}

export interface McpServerSummary {
  name: string;
  transport: string;
  status: McpServer["status"];
  cause?: string | undefined;
  tools: string[];
}

/**
 * OpenAI's API refuses a request with more than 128 tools, and the built-in
 * tools need room too: past this many MCP tools, the rest are not offered
 * (`/mcp` says so) rather than every model call failing.
 */
export const MAX_MCP_TOOLS = 96;

export class McpServers implements SubagentMcp {
  readonly #byConnection = new Map<string, Declared[]>();
  /** Inner MCP request ids of the acp links: this object's own prefix and one counter, so none repeats on a connection. */
  readonly #requestPrefix: string;
  #requestCount = 0;

  constructor(private readonly ports: { log: UpdateLog; allowPrivate: boolean; newId(): string; callTimeouts: { idleMs: number; totalMs: number } }) {
    this.#requestPrefix = `hermes-${ports.newId().slice(0, 8)}`;
  }

  /** A connection attached with these entries; its earlier ones (if any) are closed. Connects in the background. */
  attach(connectionId: string, entries: McpServerEntry[]): void {
    this.detach(connectionId);
    const declared: Declared[] = [];
    const names = new Set<string>();
    for (const entry of entries) {
      const d = this.#declare(connectionId, entry);
      const key = sanitizeName(entry.name);
      if (names.has(key)) {
        d.server.status = "skipped";
        d.server.cause = `another server in this session is already named "${entry.name}"`;
      }
      names.add(key);
      declared.push(d);
    }
    this.#byConnection.set(connectionId, declared);
    for (const d of declared) {
      if (d.server.status === "connecting") void d.server.start().then(() => this.#report(connectionId, d, declared));
      else this.#report(connectionId, d, declared);
    }
  }

  detach(connectionId: string): void {
    const declared = this.#byConnection.get(connectionId);
    this.#byConnection.delete(connectionId);
    for (const d of declared ?? []) void d.server.close();
  }

  closeAll(): void {
    for (const connectionId of [...this.#byConnection.keys()]) this.detach(connectionId);
  }

  /**
   * Resolves once no server is connecting or listing; a turn waits for it
   * before it picks its tools. First the idle `acp` servers of attached
   * connections are listed: the binding lets a server's notification travel
   * only with a request of ours, so a `list_changed` sent while idle waits
   * until the server is asked something (never, if it offers no tools). This
   * one list per server per turn carries what waited and is the current list
   * itself; a bare ping's answer could overtake the notifications it carried
   * (responses skip the connection's queue), and a periodic one would keep
   * the session object awake.
   */
  async ready(): Promise<void> {
    for (const [connectionId] of this.ports.log.attached()) {
      for (const d of this.#byConnection.get(connectionId) ?? []) if (d.serverId !== undefined) d.server.recheck();
    }
    await Promise.all([...this.#byConnection.values()].flat().map((d) => d.server.settled()));
  }

  /**
   * The MCP tools of every attached connection's servers, at most
   * `MAX_MCP_TOOLS` of them. Two connections' servers may offer one name (two
   * editors with the same config): the connection attached longest keeps it,
   * and when it goes the next one's tool is offered, computed on every call.
   */
  tools(): AnyTool[] {
    return this.#offeredByServer().flatMap((x) => x.tools).slice(0, MAX_MCP_TOOLS);
  }

  /** Each attached connection's servers, longest attached first, with the tools no earlier server took. */
  #offeredByServer(): { d: Declared; tools: AnyTool[] }[] {
    const seen = new Set<string>();
    return [...this.ports.log.attached()].reverse().flatMap(([connectionId]) =>
      (this.#byConnection.get(connectionId) ?? []).map((d) => {
        const tools = this.#own(d).filter((t) => !seen.has(t.name));
        for (const t of tools) seen.add(t.name);
        return { d, tools };
      }),
    );
  }

  /** For sub-agents: the tools offered now, as data. */
  descriptors(): McpToolDescriptor[] {
    return this.#offeredWithServers().map(({ tool, d, info }) => ({ name: tool.name, server: d.server.name, info }));
  }

  /** A sub-agent's call of one of these tools by its offered name (its own gate has asked already). */
  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const found = this.#offeredWithServers().find((x) => x.tool.name === name);
    if (!found) throw new ToolError(`The MCP tool ${name} is no longer available: the editor that declared its server is gone.`);
    return found.d.server.call(found.info.name, args, signal);
  }

  /** What `tools()` offers, each with its server and the server's own description of it. */
  #offeredWithServers(): { tool: AnyTool; d: Declared; info: McpToolInfo }[] {
    return this.#offeredByServer()
      .flatMap(({ d, tools }) => tools.map((tool) => ({ tool, d })))
      .slice(0, MAX_MCP_TOOLS)
      .map(({ tool, d }) => ({ tool, d, info: d.server.tools.find((i) => mcpToolName(d.server.name, i.name) === tool.name)! }));
  }

  /** `/mcp`: every server of the attached connections, with status and tools. */
  summaries(): McpServerSummary[] {
    const offered = new Map(this.#offeredByServer().map(({ d, tools }) => [d, tools]));
    return this.ports.log.attached().flatMap(([connectionId]) =>
      (this.#byConnection.get(connectionId) ?? []).map((d) => ({
        name: d.server.name,
        transport: d.server.transport,
        status: d.server.status,
        cause: d.server.cause,
        tools: (offered.get(d) ?? []).map((t) => t.name),
      })),
    );
  }

  /** An `mcp/message` notification from a client: a server of that connection changed its tools, or reports progress on a call. */
  notify(connectionId: string, params: McpMessageParams): void {
    const d = this.#byConnection.get(connectionId)?.find((x) => x.serverId === params.serverId);
    if (d && params.method === "notifications/tools/list_changed") d.server.refresh();
    if (d && params.method === "notifications/progress") d.server.progressed(params.requestId);
  }

  #declare(connectionId: string, entry: McpServerEntry): Declared {
    if (isStdioEntry(entry)) {
      const server = new McpServer(entry.name, "stdio", undefined);
      server.status = "unsupported";
      server.cause = "stdio servers run on your machine and the agent runs on a server; start the editor's agent through hermes-edge-proxy, which runs them for it";
      return { server, own: [], problems: [], listed: undefined };
    }
    if (entry.type === "acp") {
      const server = new McpServer(entry.name, "acp", async () =>
        acpLink(entry, (params, options) => {
          const { log } = this.ports;
          if (!log.isAttached(connectionId)) throw new Error("the editor connection that declared it is no longer attached");
          if (options.signal?.aborted) throw requestCancelled(); // as in client-port.ts: never sent after its own withdrawal
          const { frame, answer } = log.requests.open(connectionId, MCP_MESSAGE, params, { ...options, bound: true });
          log.send(connectionId, frame);
          return answer;
        }, () => `${this.#requestPrefix}-${++this.#requestCount}`),
        this.ports.callTimeouts,
      );
      return { server, serverId: entry.serverId, own: [], problems: [], listed: undefined };
    }
    const server: McpServer = new McpServer(entry.name, entry.type, () =>
      connectHttp(entry, {
        allowPrivate: this.ports.allowPrivate,
        timeoutMs: 10_000,
        onToolsChanged: () => server.refresh(),
        onClosed: () => server.lost("the connection closed"),
      }),
      this.ports.callTimeouts,
    );
    return { server, own: [], problems: [], listed: undefined };
  }

  /** The server's own usable tools as `Tool`s, rebuilt only when it listed again. */
  #own(d: Declared): AnyTool[] {
    if (d.server.status !== "ready" && d.server.status !== "failed") return [];
    if (d.listed === d.server.tools) return d.own;
    const own: AnyTool[] = [];
    const problems: string[] = [];
    const builtins = builtinNames();
    for (const info of d.server.tools) {
      const name = mcpToolName(d.server.name, info.name);
      if (info.invalid !== undefined) problems.push(`${info.name.startsWith("#") ? `tool ${info.name}` : `tool "${info.name}"`} is left out: ${info.invalid}`);
      else if (builtins.has(name)) problems.push(`tool "${info.name}" is left out: its name ${name} is a built-in tool's`);
      else if (own.some((t) => t.name === name)) problems.push(`tool "${info.name}" is left out: another MCP tool is already named ${name}`);
      else own.push(mcpTool(d.server, info, name));
    }
    d.listed = d.server.tools;
    d.own = own;
    d.problems = problems;
    return own;
  }

  /** Tells the declaring editor what went wrong with a server, once it has settled. */
  #report(connectionId: string, d: Declared, declared: Declared[]): void {
    if (this.#byConnection.get(connectionId) !== declared) return; // re-attached meanwhile
    const { server } = d;
    const own = this.#own(d);
    const offered = this.#offeredByServer().find((x) => x.d === d)?.tools ?? own;
    const taken = own.filter((t) => !offered.includes(t)).map((t) => `${t.name} is left out while a server of another editor connection offers a tool of that name (it is offered once that connection goes)`);
    const problems = [...d.problems, ...taken];
    if (server.status !== "ready") problems.unshift(`unavailable: ${server.cause}. Its tools are not offered in this session`);
    if (problems.length === 0) return;
    const text = `\n\n⚠️ MCP server "${server.name}" (${server.transport}): ${problems.join("; ")}.\n`;
    this.ports.log.sendUnlogged(connectionId, agentMessageChunk(text, this.ports.newId()));
  }
}
