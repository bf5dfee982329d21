/**
 * Where a fast stream's Worker CPU goes: a V8 CPU profile of the Worker's
 * workerd while `--trials N` answers of 20,000 unpaced deltas stream over the
 * direct WebSocket (figure 2b's load). The profile is taken through workerd's
 * own inspector port (as bench/lib/isolate-heap.ts reaches it), so wrangler's
 * DevTools proxy stays off; sampling still costs, so read the shares.
 *
 *   npx tsx bench/profile-stream.ts [--trials 3] [--deltas 20000] [--out stream.cpuprofile]
 */
import { writeFileSync } from "node:fs";
import { WsAcpClient } from "./lib/acp-client.js";
import { argValue } from "./lib/args.js";
import { reportSelfTime, workerdInspector, type Profile } from "./lib/cpu-profile.js";
import { findWorkerPid, startService, TOKEN } from "./lib/service.js";
import { initialize, newSession, nonce, runPrompt, sleep } from "./lib/turns.js";

const trials = Number(argValue("--trials") ?? 3);
const deltas = Number(argValue("--deltas") ?? 20_000);
const out = argValue("--out");

const service = await startService();
try {
  const pid = findWorkerPid(service.server);
  if (pid === undefined) throw new Error("the Worker's workerd process was not found");
  const inspector = await workerdInspector(pid);
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
  reportSelfTime(profile, { per: (trials * deltas) / 1000, unit: "1,000 deltas", skip: ["(idle)"], title: "self time (idle left out)", files: 25, functions: 45 });
  await client.close();
  inspector.close();
} finally {
  await service.stop();
}
