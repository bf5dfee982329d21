/**
 * A V8 CPU profile of workerd, taken through a DevTools inspector, and its
 * self time by source file and by function (bench/profile-prompt.ts,
 * bench/profile-stream.ts).
 */
import { execFileSync } from "node:child_process";
import WebSocket from "ws";
import { fmt, table } from "./stats.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Inspector {
  call(method: string, params?: object): Promise<unknown>;
  close(): void;
}

/** Opens a DevTools session on the inspector target at `listUrl` (a `/json` or `/json/list` address), or null when it lists none. */
export async function openInspector(listUrl: string, pick: (targets: { webSocketDebuggerUrl?: string; title?: string }[]) => string | undefined = (t) => t[0]?.webSocketDebuggerUrl): Promise<Inspector | null> {
  const targets = (await fetch(listUrl).then((r) => (r.ok ? r.json() : []), () => [])) as { webSocketDebuggerUrl?: string; title?: string }[];
  const url = pick(targets);
  if (!url) return null;
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

/**
 * Prints self time per `unit` (the profile's total divided by `per`), by file
 * and by function, leaving out the frames named in `skip`.
 *
 * Each sample counts as the median interval between samples, not as its own
 * `timeDeltas` entry: workerd's isolate takes no samples while it waits for
 * I/O, so the delta after a wait (up to the whole gap between two prompts)
 * would go to whichever function ran first after it.
 */
export function reportSelfTime(profile: Profile, options: { per: number; unit: string; skip: string[]; title: string; files: number; functions: number }): void {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const sampleUs = median(profile.timeDeltas);
  const selfUs = new Map<number, number>();
  for (const id of profile.samples) selfUs.set(id, (selfUs.get(id) ?? 0) + sampleUs);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = byNode.get(id)!.callFrame;
    if (options.skip.includes(frame.functionName)) continue;
    total += us;
    const file = frame.url.replace(/^.*\/(src|node_modules|packages)\//, "$1/") || "(native)";
    const fn = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const rows = (m: Map<string, number>, k: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, us]) => [name, fmt(us / 1000 / options.per, 3), `${fmt((100 * us) / total, 1)} %`]);
  console.log(`\n${options.title}: ${fmt(total / 1000 / options.per)} ms per ${options.unit} (${profile.samples.length} samples, one every ${fmt(sampleUs / 1000, 3)} ms)\n`);
  console.log(table(["file", `ms per ${options.unit}`, "share"], rows(byFile, options.files)));
  console.log();
  console.log(table(["function", `ms per ${options.unit}`, "share"], rows(byFunction, options.functions)));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** workerd's own inspector: one of the ports the Worker's process listens on lists a target. */
export async function workerdInspector(pid: number): Promise<Inspector> {
  const listening = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" }).split("\n").filter((line) => line.includes(`pid=${pid},`));
  for (const line of listening) {
    const port = /:(\d+)$/.exec(line.split(/\s+/)[3] ?? "")?.[1];
    const inspector = await openInspector(`http://127.0.0.1:${port}/json/list`);
    if (inspector) return inspector;
  }
  throw new Error(`no inspector found among the ports workerd ${pid} listens on`);
}
