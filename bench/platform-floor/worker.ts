/**
 * The platform floor for figure 1b: the shape of hermes-edge's prompt path
 * with nothing else in it, in two forms.
 *
 * - `/acp` (two objects, the service's shape): a socket ends in a connection
 *   object; a prompt is one RPC to a session object, which stores it (one
 *   commit), asks the model, stores the first delta (a second commit, which the
 *   output gate waits for) and sends it back to the connection object in one
 *   RPC, which writes it to the socket. These are the two confirmations and
 *   the two hops between objects that docs/architecture.md ("Why the order
 *   matters") says the design needs.
 * - `/acp?single` (one object): the connection object runs the prompt itself,
 *   with the same two commits and no RPC. No design with a session that
 *   outlives its connection can do less.
 *
 * Left out on purpose, because the service needs them and the floor does not:
 * authentication, zod checks, the tenant's turn slot, history, the system
 * prompt, tools, the coalescer, the D1 index, usage and search. What the
 * service costs above this floor is what its own code costs.
 *
 * It answers just enough ACP for bench/lib/turns.ts (`initialize`,
 * `session/new`, `session/prompt`) and checks nothing: a benchmark fixture,
 * not a service.
 */
import { DurableObject } from "cloudflare:workers";

interface Env {
  CONNECTION: DurableObjectNamespace<FloorConnection>;
  SESSION: DurableObjectNamespace<FloorSession>;
  OPENAI_BASE_URL: string;
}

interface Frame {
  id?: number | string;
  method?: string;
  params?: { sessionId?: string; prompt?: { text?: string }[] };
}

type RequestId = number | string | null;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    if (url.pathname !== "/acp" || request.headers.get("Upgrade") !== "websocket") return new Response("not found", { status: 404 });
    const name = crypto.randomUUID();
    const headers = new Headers(request.headers);
    headers.set("X-Connection", name);
    headers.set("X-Shape", url.searchParams.has("single") ? "single" : "two");
    return env.CONNECTION.get(env.CONNECTION.idFromName(name)).fetch(new Request(request, { headers }));
  },
};

export class FloorConnection extends DurableObject<Env> {
  override async fetch(request: Request): Promise<Response> {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [request.headers.get("X-Connection") ?? "", request.headers.get("X-Shape") ?? "two"]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const frame = JSON.parse(String(message)) as Frame;
    const reply = (result: unknown) => ws.send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result }));
    if (frame.method === "initialize") return reply({ protocolVersion: 1, agentCapabilities: {} });
    if (frame.method === "session/new") {
      const sessionId = crypto.randomUUID();
      reply({ sessionId });
      ws.send(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: { sessionUpdate: "available_commands_update", availableCommands: [] } } }));
      return;
    }
    const sessionId = frame.params?.sessionId;
    if (frame.method !== "session/prompt" || !sessionId) return reply(null);
    const [connection = "", shape] = this.ctx.getTags(ws);
    const text = frame.params?.prompt?.[0]?.text ?? "";
    if (shape === "single") {
      await runPrompt(this.ctx.storage.sql, this.env, sessionId, frame.id ?? null, text, (frames) => {
        for (const f of frames) ws.send(f);
      });
      return;
    }
    const session = this.env.SESSION.get(this.env.SESSION.idFromName(sessionId));
    // Not awaited: the session object answers through deliver, as the service's does.
    void session.prompt(connection, sessionId, frame.id ?? null, text);
  }

  deliver(frames: string[]): void {
    for (const ws of this.ctx.getWebSockets()) for (const frame of frames) ws.send(frame);
  }
}

export class FloorSession extends DurableObject<Env> {
  async prompt(connectionName: string, sessionId: string, id: RequestId, text: string): Promise<void> {
    const connection = this.env.CONNECTION.get(this.env.CONNECTION.idFromName(connectionName));
    await runPrompt(this.ctx.storage.sql, this.env, sessionId, id, text, (frames) => connection.deliver(frames));
  }
}

/**
 * Stores the prompt, streams the model's answer, and logs each delta before
 * it is sent. Frames that come while a delivery is in flight go together in
 * the next one, as the service's outbox does.
 */
async function runPrompt(
  sql: SqlStorage,
  env: Env,
  sessionId: string,
  id: RequestId,
  text: string,
  deliver: (frames: string[]) => unknown,
): Promise<void> {
  sql.exec("CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY AUTOINCREMENT, frame TEXT NOT NULL)");
  const log = (frame: string) => sql.exec("INSERT INTO log (frame) VALUES (?)", frame);
  let queued: string[] = [];
  let sent: Promise<unknown> = Promise.resolve();
  const flush = async () => {
    const batch = queued;
    queued = [];
    if (batch.length > 0) await deliver(batch);
  };
  const send = (frame: string) => {
    if (queued.push(frame) === 1) sent = sent.then(flush);
  };

  log(JSON.stringify({ role: "user", text }));
  const response = await fetch(`${env.OPENAI_BASE_URL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer floor" },
    body: JSON.stringify({ model: "mock-model", stream: true, messages: [{ role: "user", content: text }] }),
  });
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const bytes of response.body!) {
    buffered += decoder.decode(bytes as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (!event.startsWith("data: {")) continue;
      const content = (JSON.parse(event.slice(6)) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content;
      if (!content) continue;
      const frame = JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: content } } },
      });
      log(frame);
      send(frame);
    }
  }
  send(JSON.stringify({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } }));
  await sent;
}
