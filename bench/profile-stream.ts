/**
 * Where a fast stream's Worker CPU goes: a V8 CPU profile of the Worker's
 * workerd while `--trials N` answers of 20,000 unpaced deltas stream over the
 * direct WebSocket (figure 2b's load). The profile is taken through workerd's
 * own inspector port (as bench/lib/isolate-heap.ts reaches it), so wrangler's
 * DevTools proxy stays off; sampling still costs, so read the shares.
 *
 *   npx tsx bench/profile-stream.ts [--trials 3] [--deltas 20000] [--out stream.cpuprofile]
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import WebSocket from "ws";
import { WsAcpClient } from "./lib/acp-client.js";
import { findWorkerPid, startService, TOKEN } from "./lib/service.js";
import { fmt, table } from "./lib/stats.js";
import { initialize, newSession, nonce, runPrompt, sleep } from "./lib/turns.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const trials = Number(argValue("--trials") ?? 3);
const deltas = Number(argValue("--deltas") ?? 20_000);
const out = argValue("--out");

const service = await startService();
try {
  const pid = findWorkerPid(service.server);
  if (pid === undefined) throw new Error("the Worker's workerd process was not found");
  const inspector = await openInspector(pid);
  const client = await WsAcpClient.open(service.wsUrl, TOKEN);
  await initialize(client);
  const warm = await newSession(client);
  await runPrompt(client, warm.sessionId, `warm up ${nonce("warm", 0)}`);
  await inspector.call("Profiler.enable");
  await inspector.call("Profiler.setSamplingInterval", { interval: 100 });
  await inspector.call("Profiler.start");
  for (let i = 0; i < trials; i++) {
    service.mock.setScript(`p${i}`, [{ tokens: deltas }]);
    const { sessionId } = await newSession(client);
    await runPrompt(client, sessionId, `stream ${nonce("profile", i)} [[mock:p${i}]]`, 120_000);
    client.forgetSession(sessionId);
    await sleep(100);
  }
  const { profile } = (await inspector.call("Profiler.stop")) as { profile: Profile };
  if (out) writeFileSync(out, JSON.stringify(profile));
  report(profile, (trials * deltas) / 1000);
  await client.close();
  inspector.close();
} finally {
  await service.stop();
}

function report(profile: Profile, kDeltas: number): void {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = byNode.get(id)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    total += us;
    const file = frame.url.replace(/^.*\/(src|node_modules|packages)\//, "$1/") || "(native)";
    const fn = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const rows = (m: Map<string, number>, k: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, us]) => [name, fmt(us / 1000 / kDeltas, 3), `${fmt((100 * us) / total, 1)} %`]);
  console.log(`\nself time (idle left out): ${fmt(total / 1000 / kDeltas)} ms per 1,000 deltas\n`);
  console.log(table(["file", "ms per 1,000 deltas", "share"], rows(byFile, 25)));
  console.log();
  console.log(table(["function", "ms per 1,000 deltas", "share"], rows(byFunction, 45)));
}

async function openInspector(pid: number): Promise<{ call(method: string, params?: object): Promise<unknown>; close(): void }> {
  const listening = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" }).split("\n").filter((line) => line.includes(`pid=${pid},`));
  for (const line of listening) {
    const port = /:(\d+)$/.exec(line.split(/\s+/)[3] ?? "")?.[1];
    const targets = (await fetch(`http://127.0.0.1:${port}/json/list`).then((r) => (r.ok ? r.json() : []), () => [])) as { webSocketDebuggerUrl?: string }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (!url) continue;
    const ws = new WebSocket(url);
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
  throw new Error(`no inspector found among the ports workerd ${pid} listens on`);
}
