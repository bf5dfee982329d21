/**
 * Diagnostic behind issue 26, item 1 (not part of `npm run bench`): how many
 * DevTools events does a Worker's read of a streamed response cost, and does
 * the way the Worker reads change it? With wrangler's inspector attached,
 * each event from the runtime becomes one HTTP request from wrangler's
 * InspectorProxyWorker to wrangler's node process ("debug-log", not awaited),
 * which is what piled up ~20,000 sockets during a fast 20,000-delta answer.
 *
 * A bare Worker fetches 5,000 chunks of 100 bytes (written back to back by a
 * Node server, or one per millisecond with `slow`) and reads them in several
 * ways. wrangler runs with its own inspector relay off (VSCODE_INSPECTOR_OPTIONS
 * set; workerd still opens its inspector port); this script attaches to that
 * port itself, enables the Network and Runtime domains as wrangler's relay does,
 * and counts the events per read mode.
 *
 *   npx tsx bench/diagnose-inspector-events.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { startDevServer } from "../test/support/wrangler-dev.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { REPO_ROOT } from "./lib/machine.js";
import { fmt, table } from "./lib/stats.js";

const CHUNKS = 5_000;

const WORKER = `
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    const response = await fetch(url.searchParams.get("target"));
    const mode = url.searchParams.get("mode");
    let reads = 0;
    if (mode === "text") {
      await response.text();
      reads = 1;
    } else if (mode === "byob" || mode === "readAtLeast") {
      const reader = response.body.getReader({ mode: "byob" });
      let buffer = new ArrayBuffer(65536);
      for (;;) {
        const { done, value } = mode === "byob" ? await reader.read(new Uint8Array(buffer)) : await reader.readAtLeast(16384, new Uint8Array(buffer));
        if (value) { reads++; buffer = value.buffer; }
        if (done) break;
      }
    } else {
      const body = mode === "decoder" ? response.body.pipeThrough(new TextDecoderStream()) : mode === "identity" ? response.body.pipeThrough(new IdentityTransformStream()) : response.body;
      const reader = body.getReader();
      for (;;) { const { done } = await reader.read(); if (done) break; reads++; }
    }
    return Response.json({ reads });
  },
};`;

const MODES: { mode: string; label: string; slow?: boolean }[] = [
  { mode: "plain", label: "default reader" },
  { mode: "byob", label: "BYOB reader, 64 KiB buffer" },
  { mode: "readAtLeast", label: "BYOB readAtLeast(16 KiB)" },
  { mode: "identity", label: "through IdentityTransformStream" },
  { mode: "decoder", label: "through TextDecoderStream" },
  { mode: "text", label: "response.text()" },
  { mode: "plain", label: "default reader, 1 chunk per ms", slow: true },
];

/** The DevTools WebSocket URL of the Worker's own runtime (not wrangler's proxy). */
async function runtimeInspectorUrl(pgid: number): Promise<string> {
  const pids = execFileSync("pgrep", ["-g", String(pgid), "workerd"], { encoding: "utf8" }).trim().split("\n");
  const ports = execFileSync("ss", ["-tlnp"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => pids.some((pid) => line.includes(`pid=${pid},`)))
    .map((line) => line.trim().split(/\s+/)[3]!.split(":").pop()!);
  for (const port of ports) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(1_000) })).json()) as { webSocketDebuggerUrl?: string }[];
      const url = targets.find((t) => t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
      if (url) return url;
    } catch {
      // not an inspector port
    }
  }
  throw new Error("no inspector port answered /json");
}

async function measure(ctx: FigureContext): Promise<SummaryRow[]> {
  const chunkServer = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const piece = `data: ${"x".repeat(92)}\n\n`;
    const slow = req.url?.includes("slow");
    let written = 0;
    const tick = () => {
      do res.write(piece);
      while (++written < CHUNKS && !slow);
      if (written < CHUNKS) setTimeout(tick, 1);
      else res.end();
    };
    tick();
  });
  await new Promise<void>((resolve) => chunkServer.listen(0, "127.0.0.1", () => resolve()));
  ctx.defer(() => new Promise<void>((resolve) => chunkServer.close(() => resolve())));
  const base = `http://127.0.0.1:${(chunkServer.address() as AddressInfo).port}/`;

  const dir = mkdtempSync(join(tmpdir(), "hermes-inspector-diag-"));
  ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "worker.js"), WORKER);
  writeFileSync(join(dir, "wrangler.toml"), `name = "inspector-diag"\nmain = "worker.js"\ncompatibility_date = "2026-04-20"\n`);
  const server = await startDevServer({ vars: {}, cwd: dir, migrate: false });
  ctx.defer(() => server.stop());

  const devtools = new WebSocket(await runtimeInspectorUrl(server.pid));
  await new Promise((resolve, reject) => devtools.once("open", resolve).once("error", reject));
  ctx.defer(() => devtools.close());
  const events = new Map<string, number>();
  devtools.on("message", (data) => {
    const method = (JSON.parse(String(data)) as { method?: string }).method;
    if (method) events.set(method, (events.get(method) ?? 0) + 1);
  });
  devtools.send(JSON.stringify({ id: 1, method: "Runtime.enable" }));
  devtools.send(JSON.stringify({ id: 2, method: "Network.enable" }));
  await sleep(300);

  const rows: string[][] = [];
  for (const { mode, label, slow } of MODES) {
    ctx.checkTime(label);
    events.clear();
    const target = encodeURIComponent(base + (slow ? "slow" : ""));
    const started = performance.now();
    const { reads } = (await (await fetch(`${server.url}/?mode=${mode}&target=${target}`)).json()) as { reads: number };
    const ms = performance.now() - started;
    await sleep(300); // the last events arrive after the response
    const data = events.get("Network.dataReceived") ?? 0;
    const other = [...events].filter(([method]) => method !== "Network.dataReceived").reduce((sum, [, n]) => sum + n, 0);
    rows.push([label, String(reads), String(data), String(other), fmt(data / CHUNKS, 2), fmt(ms)]);
  }
  ctx.log(`${CHUNKS} chunks of 100 bytes, each written separately`);
  ctx.log(table(["Worker reads the body with", "JS reads", "Network.dataReceived", "other events", "events per chunk", "ms"], rows));
  return rows.map((r) => ({ figure: "inspector", metric: `${r[0]}: Network.dataReceived per chunk`, value: r[4]!, target: "—", status: "info" as const }));
}

if (isMain(import.meta.url)) {
  await runFigure("inspector", "DevTools events per read of a streamed response", 5 * 60_000, measure);
}
