/**
 * Diagnostic behind figure 2b (not part of `npm run bench`): does the cost of
 * reading a streamed model answer depend on what else the isolate holds, and
 * does a reader that lends its own buffer (BYOB) change that?
 *
 * A bare Durable Object (no hermes-edge code, its own `wrangler dev` per
 * variant, inspector off) asks the mock for an unpaced stream of 20,000
 * deltas and reads it as the reading floor does (decode, cut into events,
 * `JSON.parse`). Four variants, trials alternating between them:
 * - the isolate's heap as it starts, or with `--objects` small objects kept
 *   alive first (60,000 by default, about as much as hermes-edge's isolate
 *   holds after a turn: 8 MB);
 * - a default reader (a new buffer for every read), or a BYOB reader lent one
 *   16 KiB buffer again and again (as `src/agent/sse-chunks.ts` reads).
 *
 *   npx tsx bench/diagnose-read-buffers.ts [--trials 8] [--objects 60000]
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockOpenAI } from "../test/support/mock-openai.js";
import { startDevServer, type DevServer } from "../test/support/wrangler-dev.js";
import { argValue } from "./lib/args.js";
import { REPO_ROOT } from "./lib/machine.js";
import { READ_STEP } from "./lib/read-floor.js";
import { cpuMsOf, findWorkerPid } from "./lib/service.js";
import { fmt, summarize, table } from "./lib/stats.js";

const TRIALS = Number(argValue("--trials") ?? 8);
const OBJECTS = Number(argValue("--objects") ?? 60_000);
const DELTAS = 20_000;

const WORKER = `
import { DurableObject } from "cloudflare:workers";

const kept = [];

export class Reader extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    const objects = Number(url.searchParams.get("objects"));
    for (let i = kept.length; i < objects; i++) kept.push({ i, text: "kept " + i, pair: [i, i + 1] });
    const response = await fetch(url.searchParams.get("target") + "/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer diagnose" },
      body: JSON.stringify({ model: "mock-model", stream: true, messages: [{ role: "user", content: "[[mock:" + url.searchParams.get("key") + "]]" }] }),
    });
    const byob = url.searchParams.get("reader") === "byob";
    const reader = response.body.getReader(byob ? { mode: "byob" } : undefined);
    let lent = new ArrayBuffer(16 * 1024);
    const decoder = new TextDecoder();
    let buffer = "", deltas = 0, first = 0, last = 0;
    for (;;) {
      const { done, value } = byob ? await reader.read(new Uint8Array(lent)) : await reader.read();
      if (done) break;
      if (byob) lent = value.buffer;
      if (value.byteLength === 0) continue;
${READ_STEP}
    }
    return Response.json({ deltas, ms: last - first });
  }
}

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname === "/health") return new Response("ok");
    return env.READER.get(env.READER.idFromName("reader")).fetch(request);
  },
};
`;

const WRANGLER_TOML = `compatibility_date = "2026-04-20"
compatibility_flags = ["nodejs_compat"]
main = "worker.js"

[[durable_objects.bindings]]
name = "READER"
class_name = "Reader"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["Reader"]
`;

interface Variant {
  label: string;
  query: string;
  server: DevServer;
  dir: string;
  pid: number | undefined;
  rates: number[];
  cpuPerK: number[];
}

async function startVariant(label: string, objects: number, reader: "default" | "byob"): Promise<Variant> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-read-buffers-"));
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "worker.js"), WORKER);
  writeFileSync(join(dir, "wrangler.toml"), `name = "read-buffers-${reader}-${objects}"\n${WRANGLER_TOML}`);
  const server = await startDevServer({ vars: {}, cwd: dir, migrate: false, startTimeoutMs: 90_000 });
  return { label, query: `objects=${objects}&reader=${reader}`, server, dir, pid: findWorkerPid(server), rates: [], cpuPerK: [] };
}

const mock = await startMockOpenAI();
const variants: Variant[] = [];
try {
  variants.push(await startVariant("heap as it starts, default reader", 0, "default"));
  variants.push(await startVariant("heap as it starts, BYOB reader", 0, "byob"));
  variants.push(await startVariant(`${OBJECTS} objects kept, default reader`, OBJECTS, "default"));
  variants.push(await startVariant(`${OBJECTS} objects kept, BYOB reader`, OBJECTS, "byob"));
  // Trial 0 of each variant warms it up (and fills its heap) and is not counted.
  for (let trial = 0; trial <= TRIALS; trial++) {
    for (const [i, v] of variants.entries()) {
      const key = `v${i}-t${trial}`;
      mock.setScript(key, [{ tokens: trial === 0 ? 2_000 : DELTAS }]);
      const before = v.pid === undefined ? Number.NaN : cpuMsOf(v.pid) ?? Number.NaN;
      const response = await fetch(`${v.server.url}/?target=${encodeURIComponent(mock.url)}&key=${key}&${v.query}`);
      const read = (await response.json()) as { deltas: number; ms: number };
      const cpuMs = (v.pid === undefined ? Number.NaN : cpuMsOf(v.pid) ?? Number.NaN) - before;
      mock.reset();
      if (read.deltas !== (trial === 0 ? 2_000 : DELTAS)) throw new Error(`${v.label}: ${read.deltas} deltas read`);
      if (trial === 0) continue;
      v.rates.push(DELTAS / (read.ms / 1000));
      v.cpuPerK.push((cpuMs / DELTAS) * 1000);
    }
  }
  const rows = variants.map((v) => {
    const rate = summarize(v.rates);
    const cpu = summarize(v.cpuPerK);
    return [v.label, fmt(rate.p50, 0), `${fmt(rate.min, 0)}–${fmt(rate.max, 0)}`, fmt(cpu.p50), `${fmt(cpu.min)}–${fmt(cpu.max)}`];
  });
  console.log(`\n${TRIALS} trials of ${DELTAS} unpaced deltas per variant, alternating\n`);
  console.log(table(["variant", "deltas/s (median)", "range", "Worker CPU per 1,000 deltas, ms (median)", "range"], rows));
} finally {
  for (const v of variants) {
    await v.server.stop();
    rmSync(v.dir, { recursive: true, force: true });
  }
  await mock.close();
}
