/**
 * Where a simple prompt's Worker CPU goes: a V8 CPU profile of workerd (the
 * Worker and every Durable Object) while `--prompts N` short prompts run over
 * the direct WebSocket, 10 per session as in figure 1. Prints self time by
 * function and by source file. Not a figure: the DevTools inspector it needs
 * makes every await slower, so read the shares, not the milliseconds.
 *
 *   npx tsx bench/profile-prompt.ts [--prompts 200] [--out profile.cpuprofile]
 */
import { writeFileSync } from "node:fs";
import WebSocket from "ws";
import { WsAcpClient } from "./lib/acp-client.js";
import { startService, TOKEN } from "./lib/service.js";
import { fmt, table } from "./lib/stats.js";
import { initialize, newSession, nonce, runPrompt, sleep } from "./lib/turns.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const prompts = Number(argValue("--prompts") ?? 200);
const out = argValue("--out");

process.argv.push("--inspector"); // startService keeps wrangler's inspector on
const service = await startService();
try {
  const inspector = await openInspector();
  const client = await WsAcpClient.open(service.wsUrl, TOKEN);
  await initialize(client);
  let sessionId = "";
  for (let i = 0; i < 10; i++) {
    if (i % 10 === 0) sessionId = (await newSession(client)).sessionId;
    await runPrompt(client, sessionId, `Say hello ${nonce("warm", i)}`);
  }
  await inspector.call("Profiler.enable");
  await inspector.call("Profiler.setSamplingInterval", { interval: 50 });
  await inspector.call("Profiler.start");
  for (let i = 0; i < prompts; i++) {
    if (i % 10 === 0) sessionId = (await newSession(client)).sessionId;
    await runPrompt(client, sessionId, `Say hello ${nonce("profile", i)}`);
    await sleep(10);
  }
  const { profile } = (await inspector.call("Profiler.stop")) as { profile: Profile };
  if (out) writeFileSync(out, JSON.stringify(profile));
  report(profile, prompts);
  client.close();
  inspector.close();
} finally {
  await service.stop();
}

function report(profile: Profile, n: number): void {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = byNode.get(id)!.callFrame;
    if (frame.functionName === "(idle)" || frame.functionName === "(program)") continue;
    total += us;
    const file = frame.url.replace(/^.*\/(src|node_modules|packages)\//, "$1/") || "(native)";
    const fn = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const rows = (m: Map<string, number>, k: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, us]) => [name, fmt(us / 1000 / n, 3), `${fmt((100 * us) / total, 1)} %`]);
  console.log(`\nJavaScript self time (idle and (program) left out): ${fmt(total / 1000 / n)} ms per prompt over ${n} prompts\n`);
  console.log(table(["file", "ms per prompt", "share"], rows(byFile, 30)));
  console.log();
  console.log(table(["function", "ms per prompt", "share"], rows(byFunction, 50)));
}

async function openInspector(): Promise<{ call(method: string, params?: object): Promise<unknown>; close(): void }> {
  const targets = (await (await fetch("http://127.0.0.1:9229/json")).json()) as { webSocketDebuggerUrl: string; title: string }[];
  const target = targets.find((t) => !t.title.includes("proxy")) ?? targets[0];
  if (!target) throw new Error("no inspector target on 127.0.0.1:9229");
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  });
  return {
    call: (method, params = {}) =>
      new Promise((resolve) => {
        const id = ++next;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}
