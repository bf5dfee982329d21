/**
 * The V8 heap of the Worker's isolate, read through workerd's own inspector
 * (wrangler starts the user Worker's workerd with `--inspector-addr` on a
 * random port whether or not its DevTools proxy is on). Only the Runtime and
 * HeapProfiler commands below are sent: no domain is enabled, so the Worker
 * runs as it does without a debugger.
 *
 * The isolate's memory (its heap, with the array buffers and external strings
 * it holds outside it) is what the platform's 128 MB limit bounds. The
 * process's RSS is not: V8 with no limit in sight grows its heap far ahead of
 * collection, and workerd's RSS also holds SQLite and the runtime itself.
 */
import { execFileSync } from "node:child_process";
import WebSocket from "ws";

export interface HeapUsage {
  /**
   * Bytes in use, garbage not yet collected included: the V8 heap, the
   * embedder's (workerd's C++ objects) and the backing stores of array buffers
   * and external strings, which live outside the V8 heap but are the isolate's
   * memory as well (a request body built as bytes is one).
   */
  usedBytes: number;
  /** Bytes V8 has reserved for the heap. */
  totalBytes: number;
}

export class IsolateHeap {
  #next = 0;
  readonly #waiting = new Map<number, (result: unknown) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: unknown };
      if (message.id === undefined) return;
      this.#waiting.get(message.id)?.(message.result ?? message.error);
      this.#waiting.delete(message.id);
    });
  }

  /** Connects to the inspector of the workerd process `pid` (the one that runs the Worker). */
  static async attach(pid: number): Promise<IsolateHeap> {
    const listening = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" }).split("\n").filter((line) => line.includes(`pid=${pid},`));
    for (const line of listening) {
      const port = /:(\d+)$/.exec(line.split(/\s+/)[3] ?? "")?.[1];
      const targets = await fetch(`http://127.0.0.1:${port}/json/list`).then((r) => (r.ok ? r.json() : []), () => []) as Array<{ webSocketDebuggerUrl?: string }>;
      const url = targets[0]?.webSocketDebuggerUrl;
      if (!url) continue;
      const socket = new WebSocket(url);
      await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
      return new IsolateHeap(socket);
    }
    throw new Error(`no inspector found among the ports workerd ${pid} listens on`);
  }

  async usage(): Promise<HeapUsage> {
    const result = (await this.#call("Runtime.getHeapUsage")) as { usedSize: number; totalSize: number; embedderHeapUsedSize?: number; backingStorageSize?: number };
    return { usedBytes: result.usedSize + (result.embedderHeapUsedSize ?? 0) + (result.backingStorageSize ?? 0), totalBytes: result.totalSize };
  }

  /** A full collection, then the heap in use: what is really retained. */
  async retained(): Promise<number> {
    await this.#call("HeapProfiler.collectGarbage");
    return (await this.usage()).usedBytes;
  }

  close(): void {
    this.socket.close();
  }

  #call(method: string): Promise<unknown> {
    const id = ++this.#next;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.socket.send(JSON.stringify({ id, method }));
    });
  }
}

/** Samples the heap in use every `everyMs` until stopped; resolves to the highest seen. */
export function samplePeak(heap: IsolateHeap, everyMs = 10): { stop(): Promise<number> } {
  let running = true;
  let peak = 0;
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, (await heap.usage()).usedBytes);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}
