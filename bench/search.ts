/**
 * Figure 7 — `GET /v1/search` for a word found in 2,000 and in 12,000 messages.
 *
 * D1 is seeded before `wrangler dev` starts (through `wrangler d1 execute
 * --local` on the same persist directory): 600 sessions of one tenant, 30
 * messages each (18,000 rows, ~40 words apiece from a fixed vocabulary), with
 * the word `deploy` in 12,000 of them and `rollback` in 2,000 of those. Each
 * query is timed from the request to the parsed JSON, after warm-up, and its
 * answer is checked: `limit` hits, one per session, each snippet marking the word.
 *
 *   npx tsx bench/search.ts [--quick]
 *   BENCH_SERVICE_DIR=/path/to/other/checkout npx tsx bench/search.ts   # the same figure against another tree
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMigrations, wranglerEnv } from "../test/support/wrangler-dev.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { REPO_ROOT } from "./lib/machine.js";
import { startService, TENANT, TOKEN } from "./lib/service.js";
import { describeMs, latencyRow, LATENCY_HEADER, summarize, table, type Summary } from "./lib/stats.js";

const TARGET_MS = 50;
const SESSIONS = 600;
const MESSAGES_PER_SESSION = 30;
const COMMON = "deploy";
const RARER = "rollback";
const WRANGLER_BIN = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");

/** A small deterministic PRNG (mulberry32): the same rows on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ["ka", "lo", "mir", "sen", "ta", "vu", "rel", "on", "pi", "dra", "gel", "sto", "ne", "bar", "qui", "fen"];

/** `count` messages of `sessions` sessions; the first `common` hold COMMON, the first `rarer` of those RARER too (spread over sessions). */
function seedSql(sessions: number, perSession: number, common: number, rarer: number): string {
  const next = random(7);
  const vocabulary = Array.from({ length: 3_000 }, () => Array.from({ length: 2 + Math.floor(next() * 3) }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(""));
  const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const now = Date.UTC(2026, 0, 1);
  const lines: string[] = [];
  const sessionRows: string[] = [];
  for (let s = 0; s < sessions; s++) {
    const id = `bench-search-${String(s).padStart(4, "0")}`;
    sessionRows.push(`(${q(id)}, ${q(TENANT)}, ${q(`/work/project-${s % 37}`)}, ${q(`Session ${s}`)}, 'mock-model', 'default', ${q(id)}, ${now + s}, ${now + s * 1000})`);
  }
  for (let i = 0; i < sessionRows.length; i += 200) {
    lines.push(`INSERT INTO sessions (id, tenant, cwd, title, model, mode, root_id, created_at, updated_at) VALUES ${sessionRows.slice(i, i + 200).join(", ")};`);
  }
  const entries: string[] = [];
  const total = sessions * perSession;
  for (let m = 0; m < total; m++) {
    // Round-robin over sessions, so the matching messages spread over all of them.
    const session = m % sessions;
    const words = Array.from({ length: 20 + Math.floor(next() * 40) }, () => vocabulary[Math.floor(next() * vocabulary.length)]!);
    if (m < common) words.splice(Math.floor(next() * words.length), 0, COMMON);
    if (m < rarer) words.splice(Math.floor(next() * words.length), 0, RARER);
    const id = `bench-search-${String(session).padStart(4, "0")}`;
    entries.push(`(${q(TENANT)}, ${q(id)}, ${m % 2 ? "'agent'" : "'user'"}, ${q(words.join(" "))}, ${q(`d${m}`)}, ${now + m})`);
  }
  for (let i = 0; i < entries.length; i += 100) {
    lines.push(`INSERT INTO search_entries (tenant, session_id, role, text, digest, created_at) VALUES ${entries.slice(i, i + 100).join(", ")};`);
  }
  return lines.join("\n");
}

function wrangler(args: string[], cwd: string, persistDir: string): Promise<void> {
  return new Promise((done, fail) => {
    execFile(process.execPath, [WRANGLER_BIN, ...args, "--persist-to", persistDir], { cwd, env: wranglerEnv(persistDir), timeout: 300_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      error ? fail(new Error(`wrangler ${args.join(" ")} failed: ${String(stdout).slice(-2000)}${String(stderr).slice(-2000)}`)) : done(),
    );
  });
}

interface Hit {
  sessionId: string;
  snippet: string;
}

async function timeQuery(url: string, word: string, limit: number, trials: number): Promise<{ s: Summary; problem?: string }> {
  const samples: number[] = [];
  let problem: string | undefined;
  for (let i = 0; i < trials + 3; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/v1/search?q=${word}&limit=${limit}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const body = (await res.json()) as { results: Hit[] };
    const took = performance.now() - started;
    if (i >= 3) samples.push(took);
    const ids = new Set(body.results.map((h) => h.sessionId));
    if (res.status !== 200) problem = `HTTP ${res.status}`;
    else if (body.results.length !== limit) problem = `${body.results.length} hits, expected ${limit}`;
    else if (ids.size !== limit) problem = "a session came back twice";
    else if (!body.results.every((h) => h.snippet.includes(`**${word}**`))) problem = "a snippet does not mark the word";
  }
  return { s: summarize(samples), ...(problem ? { problem } : {}) };
}

export async function measureSearch(ctx: FigureContext): Promise<SummaryRow[]> {
  const total = SESSIONS * MESSAGES_PER_SESSION;
  const common = ctx.quick ? 3_000 : 12_000;
  const rarer = 2_000;
  const trials = ctx.quick ? 5 : 21;
  const cwd = process.env["BENCH_SERVICE_DIR"] ?? REPO_ROOT;
  const persistDir = mkdtempSync(join(tmpdir(), "hermes-bench-search-"));
  ctx.defer(() => rmSync(persistDir, { recursive: true, force: true }));
  const seedFile = join(persistDir, "seed.sql");
  writeFileSync(seedFile, seedSql(SESSIONS, MESSAGES_PER_SESSION, common, rarer));
  const seeding = performance.now();
  await applyMigrations(cwd, "hermes-edge", persistDir);
  await wrangler(["d1", "execute", "hermes-edge", "--local", "--file", seedFile], cwd, persistDir);
  ctx.log(`seeded ${total} messages in ${SESSIONS} sessions (${common} with "${COMMON}", ${rarer} with "${RARER}") in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  const service = await startService({ persistDir });
  ctx.defer(() => service.stop());

  const cases = [
    { word: RARER, matches: rarer, limit: 5 },
    { word: COMMON, matches: common, limit: 5 },
    { word: COMMON, matches: common, limit: 20 },
  ];
  const results = [];
  for (const c of cases) {
    ctx.checkTime(`search for ${c.word}`);
    results.push({ ...c, ...(await timeQuery(service.server.url, c.word, c.limit, trials)) });
  }
  ctx.log(table(LATENCY_HEADER, results.map((r) => latencyRow(`"${r.word}" (${r.matches} matches), limit ${r.limit}`, r.s))));
  return results.map((r) => {
    const gated = r.matches >= 12_000 && r.limit === 5;
    return {
      figure: "7 search",
      metric: `/v1/search, a word in ${r.matches} of ${total} messages, limit ${r.limit}`,
      value: `${describeMs(r.s)}${r.problem ? " WRONG" : ""}`,
      target: gated ? `≤ ${TARGET_MS} ms` : "—",
      ...(r.problem ? { status: "missed" as const, note: r.problem } : gated ? against(r.s.p50, TARGET_MS, "ms") : { status: "info" as const }),
    };
  });
}

if (isMain(import.meta.url)) {
  await runFigure("figure 7", "/v1/search for a word in 2,000 and 12,000 messages", 10 * 60_000, measureSearch);
}
