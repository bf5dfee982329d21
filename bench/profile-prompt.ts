/**
 * Where a simple prompt's Worker CPU goes: a V8 CPU profile of workerd (the
 * Worker and every Durable Object) while `--prompts N` short prompts run over
 * the direct WebSocket, 10 per session as in figure 1. Prints self time by
 * function and by source file. The profile is taken through workerd's own
 * inspector port, so wrangler's DevTools proxy stays off; sampling still
 * costs, so read the shares, not the milliseconds.
 *
 *   npx tsx bench/profile-prompt.ts [--prompts 200] [--out profile.cpuprofile]
 */
import { writeFileSync } from "node:fs";
import { WsAcpClient } from "./lib/acp-client.js";
import { argValue } from "./lib/args.js";
import { reportSelfTime, workerdInspector, type Profile } from "./lib/cpu-profile.js";
import { findWorkerPid, startService, TOKEN } from "./lib/service.js";
import { initialize, newSession, nonce, runPrompt, sleep } from "./lib/turns.js";

const prompts = Number(argValue("--prompts") ?? 200);
const out = argValue("--out");

const service = await startService();
try {
  const pid = findWorkerPid(service.server);
  if (pid === undefined) throw new Error("the Worker's workerd process was not found");
  const inspector = await workerdInspector(pid);
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
  reportSelfTime(profile, { per: prompts, unit: "prompt", skip: ["(idle)", "(program)"], title: `JavaScript self time (idle and (program) left out) over ${prompts} prompts`, files: 30, functions: 50 });
  client.close();
  inspector.close();
} finally {
  await service.stop();
}
