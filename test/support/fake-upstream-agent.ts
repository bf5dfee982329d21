/**
 * A fake upstream ACP agent built with the official SDK's agent API, scripted
 * by its prompt: the last user message names the script (`upstream:<name>`).
 * Used by the provider's unit tests (in memory), the e2e suite (over WebSocket,
 * `fake-upstream-server.ts`) and the proxy's e2e (over stdio, `fake-upstream-stdio.ts`).
 */
import { agent, type AgentApp, type Stream } from "@agentclientprotocol/sdk";

export interface FakeUpstreamHooks {
  /** Called for `upstream:crash`: the host ends the transport or the process. */
  crash(): void;
  /** Observations the tests check (initialize capabilities, cancels, prompts). */
  record?(event: { kind: string; [k: string]: unknown }): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function fakeUpstreamAgent(hooks: FakeUpstreamHooks): AgentApp {
  const cwds = new Map<string, string>();
  const cancels = new Map<string, () => void>();
  const record = hooks.record ?? (() => undefined);
  return agent({ name: "fake-upstream" })
    .onRequest("initialize", (ctx) => {
      record({ kind: "initialize", clientCapabilities: ctx.params.clientCapabilities });
      return { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { close: {} } }, agentInfo: { name: "fake-upstream", version: "1.0.0" } };
    })
    .onRequest("session/new", (ctx) => {
      const sessionId = `up-${crypto.randomUUID().slice(0, 8)}`;
      cwds.set(sessionId, ctx.params.cwd);
      record({ kind: "session/new", cwd: ctx.params.cwd, additionalDirectories: ctx.params.additionalDirectories ?? [] });
      return { sessionId };
    })
    .onRequest("session/close", (ctx) => {
      record({ kind: "close", sessionId: ctx.params.sessionId });
      cwds.delete(ctx.params.sessionId);
      return {};
    })
    .onNotification("session/cancel", (ctx) => {
      record({ kind: "cancel", sessionId: ctx.params.sessionId });
      cancels.get(ctx.params.sessionId)?.();
    })
    .onRequest("session/prompt", async (ctx) => {
      const { sessionId } = ctx.params;
      const prompt = ctx.params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
      record({ kind: "prompt", prompt });
      const cwd = cwds.get(sessionId) ?? "/";
      const user = prompt.slice(prompt.lastIndexOf("# User"));
      const toolResult = prompt.lastIndexOf("# Tool result") > prompt.lastIndexOf("# User") ? prompt.slice(prompt.lastIndexOf("# Tool result")) : null;
      const script = /upstream:([a-z-]+)/.exec(user)?.[1] ?? "echo";
      const say = (text: string) => ctx.client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
      const think = (text: string) => ctx.client.notify("session/update", { sessionId, update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text } } });
      const result = toolResult?.split("\n\n# ")[0]!.split("\n\n").slice(1).join("\n\n").trim();
      switch (script) {
        case "stream":
          await think("Thinking about it.");
          for (const piece of ["Hello ", "from ", "the upstream."]) {
            await say(piece);
            await sleep(20);
          }
          break;
        case "tool-call":
          if (result !== undefined) await say(`The file says: ${result}`);
          else await say(`Let me read it.\n<tool_call>{"name": "read_file", "arguments": {"path": "${cwd}/notes.txt"}}</tool_call>`);
          break;
        case "fenced":
          if (result !== undefined) await say(`Fenced result: ${result}`);
          else await say(`Reading.\n\`\`\`json\n{"name": "read_file", "arguments": {"path": "${cwd}/notes.txt"}}\n\`\`\`\n`);
          break;
        case "invalid":
          await say('Here: <tool_call>{"name": "read_file", arguments: oops}</tool_call> done.');
          break;
        case "permission": {
          const answer = await ctx.client.request("session/request_permission", {
            sessionId,
            toolCall: { toolCallId: "up-perm", title: "Run rm -rf /", kind: "execute" },
            options: [
              { optionId: "yes", name: "Allow", kind: "allow_once" },
              { optionId: "always", name: "Always", kind: "allow_always" },
              { optionId: "no", name: "Deny", kind: "reject_once" },
            ],
          });
          await say(`permission answer: ${answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled"}`);
          break;
        }
        case "fs": {
          const inside = await tryIt(() => ctx.client.request("fs/read_text_file", { sessionId, path: `${cwd}/notes.txt` }).then((r) => r.content));
          const outside = await tryIt(() => ctx.client.request("fs/read_text_file", { sessionId, path: "/etc/passwd" }).then((r) => r.content));
          const escape = await tryIt(() => ctx.client.request("fs/read_text_file", { sessionId, path: `${cwd}/../secret.txt` }).then((r) => r.content));
          await say(`inside: ${inside}\noutside: ${outside}\nescape: ${escape}`);
          break;
        }
        case "fs-write": {
          const wrote = await tryIt(() => ctx.client.request("fs/write_text_file", { sessionId, path: `${cwd}/out.txt`, content: "from upstream\n" }).then(() => "ok"));
          await say(`write: ${wrote}`);
          break;
        }
        case "terminal": {
          const term = await tryIt(() => ctx.client.request("terminal/create", { sessionId, command: "rm", args: ["-rf", "/"] }).then((r) => r.terminalId));
          await say(`terminal: ${term}`);
          break;
        }
        case "cancel":
          await say("partial answer");
          await new Promise<void>((resolve) => {
            cancels.set(sessionId, resolve);
          });
          return { stopReason: "cancelled" };
        case "slow":
          // Long enough for the proxy to drop its connection and reconnect in between (see the proxy's drop hook).
          await say("before the drop, ");
          record({ kind: "slow-said", at: Date.now() });
          await sleep(1_500);
          record({ kind: "slow-resumed", at: Date.now() });
          await say("after the drop.");
          break;
        case "hang":
          await say("starting");
          await new Promise(() => undefined);
          break;
        case "crash":
          await say("about to crash");
          await sleep(20);
          hooks.crash();
          await new Promise(() => undefined);
          break;
        case "usage":
          await ctx.client.notify("session/update", { sessionId, update: { sessionUpdate: "usage_update", used: 1234, size: 100000 } });
          await say("counted");
          break;
        default:
          await say(`echo: ${user.slice(0, 200)}`);
      }
      return { stopReason: "end_turn" };
    });
}

async function tryIt(op: () => Promise<string>): Promise<string> {
  try {
    return `ok ${await op()}`;
  } catch (err) {
    const e = err as { code?: number; message?: string };
    return `error ${e.code ?? "?"} ${e.message ?? String(err)}`;
  }
}

/** Two in-memory streams joined back to back: the stream for the provider, and `crash`, which breaks both. */
export function inMemoryUpstream(app: AgentApp): { stream: Stream; crash(): void } {
  const controllers: TransformStreamDefaultController[] = [];
  const pipe = () => new TransformStream({ start: (c) => void controllers.push(c) });
  const toAgent = pipe();
  const toClient = pipe();
  app.connect({ readable: toAgent.readable, writable: toClient.writable });
  return {
    stream: { readable: toClient.readable, writable: toAgent.writable },
    crash: () => controllers.forEach((c) => c.error(new Error("the upstream crashed"))),
  };
}

