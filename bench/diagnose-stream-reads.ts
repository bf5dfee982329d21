/**
 * Diagnostic behind figure 2 (not part of `npm run bench`): what does it cost
 * a Worker to read a streamed HTTP response, one small chunk at a time, as a
 * model's SSE answer arrives? A bare Worker (no hermes-edge code) fetches
 * 5,000 chunks of 100 bytes, each written separately by a Node server on
 * 127.0.0.1, and reads them (a) with a plain body reader and (b) with the
 * `openai` SDK's stream (5,000 tokens from the mock model). Each under
 * `wrangler dev` with its DevTools inspector off and on; the same plain read
 * in Node (undici) for comparison.
 *
 *   npx tsx bench/diagnose-stream-reads.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockOpenAI } from "../test/support/mock-openai.js";
import { startDevServer } from "../test/support/wrangler-dev.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { REPO_ROOT } from "./lib/machine.js";
import { fmt, table } from "./lib/stats.js";

const CHUNKS = 5_000;

const WORKER = `
import OpenAI from "openai";
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    const target = url.searchParams.get("target");
    if (url.searchParams.get("mode") === "sdk") {
      const client = new OpenAI({ baseURL: target + "/v1", apiKey: "x", maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: "m", stream: true, messages: [{ role: "user", content: "[[mock:" + url.searchParams.get("key") + "]]" }] });
      let tokens = 0;
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) tokens++;
      return Response.json({ tokens });
    }
    const response = await fetch(target);
    const reader = response.body.getReader();
    let reads = 0, bytes = 0;
    for (;;) { const { done, value } = await reader.read(); if (done) break; reads++; bytes += value.byteLength; }
    return Response.json({ reads, bytes });
  },
};
`;

async function measure(ctx: FigureContext): Promise<SummaryRow[]> {
  const chunkServer = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const piece = `data: ${"x".repeat(92)}\n\n`;
    for (let i = 0; i < CHUNKS; i++) res.write(piece);
    res.end();
  });
  await new Promise<void>((resolve) => chunkServer.listen(0, "127.0.0.1", () => resolve()));
  ctx.defer(() => new Promise<void>((resolve) => chunkServer.close(() => resolve())));
  const chunkUrl = `http://127.0.0.1:${(chunkServer.address() as AddressInfo).port}/`;
  const mock = await startMockOpenAI();
  ctx.defer(() => mock.close());

  const dir = mkdtempSync(join(tmpdir(), "hermes-read-diag-"));
  ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "worker.js"), WORKER);
  writeFileSync(join(dir, "wrangler.toml"), `name = "read-diag"\nmain = "worker.js"\ncompatibility_date = "2026-04-20"\ncompatibility_flags = ["nodejs_compat"]\n`);

  const rows: string[][] = [];
  // Node first: the machine's own cost of the same read.
  {
    const started = performance.now();
    const response = await fetch(chunkUrl);
    const reader = response.body!.getReader();
    let reads = 0;
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      reads++;
    }
    const ms = performance.now() - started;
    rows.push(["Node 20 fetch (undici), plain reader", `${CHUNKS} chunks`, String(reads), fmt(ms), fmt((ms * 1000) / CHUNKS, 1)]);
  }
  for (const inspector of [false, true]) {
    const label = inspector ? "wrangler dev, inspector on" : "wrangler dev, inspector off";
    const server = await startDevServer({ vars: {}, cwd: dir, migrate: false, inspector });
    try {
      for (let round = 0; round < 2; round++) {
        ctx.checkTime(label);
        const t0 = performance.now();
        const raw = (await (await fetch(`${server.url}/?target=${encodeURIComponent(chunkUrl)}`)).json()) as { reads: number };
        const rawMs = performance.now() - t0;
        const key = `diag-${inspector}-${round}`;
        mock.setScript(key, [{ tokens: CHUNKS }]);
        const t1 = performance.now();
        const sdk = (await (await fetch(`${server.url}/?mode=sdk&key=${key}&target=${encodeURIComponent(mock.url)}`)).json()) as { tokens: number };
        const sdkMs = performance.now() - t1;
        if (round === 0) continue; // the first round loads code and warms the JIT
        rows.push([`${label}, plain reader`, `${CHUNKS} chunks`, String(raw.reads), fmt(rawMs), fmt((rawMs * 1000) / CHUNKS, 1)]);
        rows.push([`${label}, openai SDK stream`, `${sdk.tokens} tokens`, "—", fmt(sdkMs), fmt((sdkMs * 1000) / CHUNKS, 1)]);
      }
    } finally {
      await server.stop();
    }
  }
  ctx.log(table(["reader", "input", "reads", "total ms", "µs per chunk"], rows));
  return rows.map((r) => ({ figure: "diagnosis", metric: `${r[0]}`, value: `${r[4]} µs per chunk`, target: "—", status: "info" as const }));
}

if (isMain(import.meta.url)) {
  await runFigure("diagnosis", "cost of reading a streamed response in a Worker", 5 * 60_000, measure);
}
