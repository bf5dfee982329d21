/**
 * Figure 8c — what one 200 KB prompt costs in its session object's SQLite
 * (issue 25, target 3: a prompt's content is stored once).
 *
 * Two sessions in one `wrangler dev`: one given a short prompt, one given a
 * 200 KB prompt, each answered with three tokens. After wrangler stops, each
 * session object's SQLite file (under wrangler's --persist-to) is copied and
 * read with the `sqlite3` CLI: the bytes in history.body, log.frame and
 * prompts.prompt (plus prompt_content.prompt where it exists), and
 * page_count × page_size (and the free pages among them) once the WAL is
 * checkpointed.
 * The difference between the two sessions is what the 200 KB prompt added.
 *
 *   BENCH_BASELINE_DIR=/work/main npx tsx bench/stored-bytes.ts
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WsAcpClient } from "./lib/acp-client.js";
import { isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { startService, TOKEN } from "./lib/service.js";
import { initialize, newSession, runPrompt } from "./lib/turns.js";

const PROMPT_KB = 200;
/** Once, with some room for the frames and rows around it. */
const TARGET_FACTOR = 1.1;

interface Stored {
  history: number;
  log: number;
  prompts: number;
  fileBytes: number;
  /** Of which pages on the free list (space rows left behind when they were rewritten). */
  freeBytes: number;
}

function sqlite(file: string, query: string): string {
  return execFileSync("sqlite3", [file, query], { encoding: "utf8" }).trim();
}

/** Every `.sqlite` file under `dir`. */
function sqliteFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sqliteFiles(path));
    else if (name.endsWith(".sqlite")) found.push(path);
  }
  return found;
}

/** The stored sizes of each session object found, by session id (a copy is read, the WAL checkpointed into it). */
function readSessions(persistDir: string): Map<string, Stored> {
  const scratch = mkdtempSync(join(tmpdir(), "hermes-stored-"));
  const sessions = new Map<string, Stored>();
  try {
    for (const file of sqliteFiles(persistDir)) {
      const copy = join(scratch, "db.sqlite");
      for (const suffix of ["", "-wal", "-shm"]) {
        rmSync(copy + suffix, { force: true });
        if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
      }
      sqlite(copy, "PRAGMA wal_checkpoint(TRUNCATE);");
      const tables = sqlite(copy, "SELECT name FROM sqlite_master WHERE type = 'table'").split("\n");
      if (!tables.includes("history") || !tables.includes("meta")) continue;
      const record = sqlite(copy, "SELECT value FROM meta WHERE key = 'session'");
      if (!record) continue;
      const sessionId = (JSON.parse(record) as { sessionId: string }).sessionId;
      const sum = (column: string, table: string) => Number(sqlite(copy, `SELECT COALESCE(SUM(LENGTH(CAST(${column} AS BLOB))), 0) FROM ${table}`));
      const pages = Number(sqlite(copy, "PRAGMA page_count"));
      const pageSize = Number(sqlite(copy, "PRAGMA page_size"));
      const free = Number(sqlite(copy, "PRAGMA freelist_count"));
      // Since issue 25's target 3 a prompt's content has a table of its own beside the prompts row.
      const prompts = sum("prompt", "prompts") + (tables.includes("prompt_content") ? sum("prompt", "prompt_content") : 0);
      sessions.set(sessionId, { history: sum("body", "history"), log: sum("frame", "log"), prompts, fileBytes: pages * pageSize, freeBytes: free * pageSize });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return sessions;
}

async function measure(ctx: FigureContext, dir: string | undefined, name: string): Promise<SummaryRow[]> {
  if (dir) process.env["BENCH_SERVICE_DIR"] = dir;
  else delete process.env["BENCH_SERVICE_DIR"];
  const persistDir = mkdtempSync(join(tmpdir(), "hermes-stored-persist-"));
  ctx.defer(() => rmSync(persistDir, { recursive: true, force: true }));
  const service = await startService({ persistDir });
  let small: string;
  let large: string;
  try {
    // Three tokens per answer (the mock's default echoes the prompt, which would add a copy of its own).
    service.mock.setScript("short", Array.from({ length: 10 }, () => ({ tokens: 3 })));
    const client = await WsAcpClient.open(service.wsUrl, TOKEN);
    await initialize(client);
    small = (await newSession(client)).sessionId;
    await runPrompt(client, small, "hello [[mock:short]]");
    large = (await newSession(client)).sessionId;
    const big = "lorem ipsum dolor sit amet ".repeat(Math.ceil((PROMPT_KB * 1024) / 27)).slice(0, PROMPT_KB * 1024);
    await runPrompt(client, large, `[[mock:short]] ${big}`, 120_000);
    await client.close();
  } finally {
    await service.stop();
  }
  const sessions = readSessions(persistDir);
  const a = sessions.get(small);
  const b = sessions.get(large);
  if (!a || !b) throw new Error(`${name}: session objects not found under ${persistDir} (found ${sessions.size})`);
  const d = (k: keyof Stored) => b[k] - a[k];
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const content = d("history") + d("log") + d("prompts");
  ctx.log(`  ${name}: the ${PROMPT_KB} KB prompt added history ${kb(d("history"))}, log ${kb(d("log"))}, prompts ${kb(d("prompts"))} = ${kb(content)}; file ${kb(d("fileBytes"))}, of which free pages ${kb(d("freeBytes"))}`);
  const row = (metric: string, value: number): SummaryRow => ({
    figure: "8c stored bytes",
    metric: `${name}: ${metric} added by one ${PROMPT_KB} KB prompt`,
    value: `${kb(value)} (${(value / (PROMPT_KB * 1024)).toFixed(2)}× the prompt)`,
    target: `≤ ${TARGET_FACTOR}× the prompt`,
    status: name === "this checkout" ? (value <= TARGET_FACTOR * PROMPT_KB * 1024 ? "met" : "missed") : "info",
    note: `history ${kb(d("history"))}, log ${kb(d("log"))}, prompts ${kb(d("prompts"))}`,
  });
  return [row("history + log + prompts bytes", content), { ...row("SQLite file (page_count × page_size)", d("fileBytes")), note: `after a WAL checkpoint; free pages ${kb(d("freeBytes"))}` }];
}

export async function measureStoredBytes(ctx: FigureContext): Promise<SummaryRow[]> {
  const baseline = process.env["BENCH_BASELINE_DIR"];
  const rows = await measure(ctx, process.env["BENCH_SERVICE_DIR"], "this checkout");
  if (baseline) rows.push(...(await measure(ctx, baseline, "baseline")));
  return rows;
}

if (isMain(import.meta.url)) {
  await runFigure("figure 8c", `stored bytes of one ${PROMPT_KB} KB prompt`, 10 * 60_000, measureStoredBytes);
}
