/**
 * The reading floor of figure 2b: a bare Worker (no hermes-edge code, its own
 * `wrangler dev`, inspector off) that asks the mock for a streamed answer and
 * does the least any service must do with it: read the body, decode it, cut
 * it into events and `JSON.parse` each. It reports how many content deltas it
 * saw, how many reads that took, and the time from its first read with data
 * to its last (workerd's clock, which moves on every I/O, so on every read).
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MockOpenAI } from "../../test/support/mock-openai.js";
import { startDevServer, type DevServer } from "../../test/support/wrangler-dev.js";
import { REPO_ROOT } from "./machine.js";
import { cpuMsOf, findWorkerPid } from "./service.js";

/**
 * Worker source for what the floor does with the bytes of one read (`value`): decode them, cut the text into
 * events and count the content deltas, with the time of the first and last read (bench/diagnose-read-buffers.ts
 * does the same).
 */
export const READ_STEP = `
      last = Date.now();
      if (!first) first = last;
      buffer += decoder.decode(value, { stream: true });
      let end, from = 0;
      while ((end = buffer.indexOf("\\n\\n", from)) !== -1) {
        const event = buffer.slice(from, end);
        from = end + 2;
        if (!event.startsWith("data: {")) continue;
        if (JSON.parse(event.slice(6)).choices?.[0]?.delta?.content) deltas++;
      }
      buffer = buffer.slice(from);`;

const WORKER = `
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    const response = await fetch(url.searchParams.get("target") + "/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer floor" },
      body: JSON.stringify({ model: "mock-model", stream: true, messages: [{ role: "user", content: "[[mock:" + url.searchParams.get("key") + "]]" }] }),
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "", deltas = 0, reads = 0, first = 0, last = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads++;
      if (value.byteLength === 0) continue;
${READ_STEP}
    }
    return Response.json({ deltas, reads, ms: last - first });
  },
};
`;

export interface FloorRead {
  deltas: number;
  reads: number;
  /** First read with data → last read with data, by workerd's clock. */
  ms: number;
  /** Worker CPU (utime + stime of its workerd) over the request; NaN when not found. */
  cpuMs: number;
}

export class ReadFloor {
  private constructor(
    private readonly server: DevServer,
    private readonly dir: string,
    /** The floor's workerd (its CPU, a profile of it); undefined when it was not found. */
    readonly pid: number | undefined,
  ) {}

  static async start(): Promise<ReadFloor> {
    const dir = mkdtempSync(join(tmpdir(), "hermes-read-floor-"));
    symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
    writeFileSync(join(dir, "worker.js"), WORKER);
    writeFileSync(join(dir, "wrangler.toml"), `name = "read-floor"\nmain = "worker.js"\ncompatibility_date = "2026-04-20"\n`);
    try {
      const server = await startDevServer({ vars: {}, cwd: dir, migrate: false, startTimeoutMs: 90_000 });
      return new ReadFloor(server, dir, findWorkerPid(server));
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** A streamed answer of `deltas` deltas, scripted on `mock` under `key` for this read only; all of them read, or it throws. */
  async readAnswer(mock: MockOpenAI, key: string, deltas: number): Promise<FloorRead> {
    mock.setScript(key, [{ tokens: deltas }]);
    const read = await this.read(mock.url, key);
    mock.reset();
    if (read.deltas !== deltas) throw new Error(`reading floor, ${key}: ${read.deltas} deltas of ${deltas}`);
    return read;
  }

  /** One streamed answer of the mock at `mockUrl`, scripted under `key`. */
  async read(mockUrl: string, key: string): Promise<FloorRead> {
    const before = this.pid === undefined ? undefined : cpuMsOf(this.pid);
    let result: Omit<FloorRead, "cpuMs">;
    try {
      const response = await fetch(`${this.server.url}/?target=${encodeURIComponent(mockUrl)}&key=${encodeURIComponent(key)}`);
      result = (await response.json()) as Omit<FloorRead, "cpuMs">;
    } catch (error) {
      // Seen once in a slow spell of the machine as a bare "fetch failed": say why, and what the floor's wrangler printed.
      const cause = error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ""}` : String(error);
      throw new Error(`reading floor: no answer for ${key}: ${cause}. The floor's wrangler printed last:\n${this.server.output()}`, { cause: error });
    }
    const after = this.pid === undefined ? undefined : cpuMsOf(this.pid);
    return { ...result, cpuMs: before === undefined || after === undefined ? Number.NaN : after - before };
  }

  async stop(): Promise<void> {
    await this.server.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
