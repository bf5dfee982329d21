/**
 * What a benchmark result needs next to it: the machine, the versions, the
 * command and how busy the machine was.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, freemem, loadavg, release, totalmem, type } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    const path = require.resolve(`${name}/package.json`, { paths: [REPO_ROOT] });
    return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  ramGiB: number;
  freeGiB: number;
  os: string;
  node: string;
  wrangler: string;
  workerd: string;
  ws: string;
  commit: string;
  load: [number, number, number];
}

export function machineInfo(): MachineInfo {
  const cpuList = cpus();
  const head = git(["rev-parse", "--short", "HEAD"]);
  const dirty = git(["status", "--porcelain"]) ? " + uncommitted changes" : "";
  const [l1, l5, l15] = loadavg();
  return {
    cpu: cpuList[0]?.model.trim() ?? "unknown",
    cores: cpuList.length,
    ramGiB: totalmem() / 2 ** 30,
    freeGiB: freemem() / 2 ** 30,
    os: `${type()} ${release()}`,
    node: process.version,
    wrangler: packageVersion("wrangler"),
    workerd: packageVersion("workerd"),
    ws: packageVersion("ws"),
    commit: head ? `${head}${dirty}` : "unknown",
    load: [l1!, l5!, l15!],
  };
}

export function loadText(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
}

export function describeMachine(m: MachineInfo = machineInfo()): string {
  return [
    `machine:  ${m.cpu}, ${m.cores} cores, ${m.ramGiB.toFixed(1)} GiB RAM (${m.freeGiB.toFixed(1)} GiB free), ${m.os}`,
    `versions: node ${m.node}, wrangler ${m.wrangler}, workerd ${m.workerd}, ws ${m.ws}; commit ${m.commit}`,
    `load:     ${m.load.map((l) => l.toFixed(2)).join(", ")} (1/5/15 min, on ${m.cores} cores; counts this benchmark's own earlier work too)${m.load[0] > m.cores ? "  ← busy: figures are pessimistic" : ""}`,
    `command:  ${commandLine()}`,
  ].join("\n");
}

export function commandLine(): string {
  const script = process.argv[1] ? process.argv[1].replace(`${REPO_ROOT}/`, "") : "";
  return ["npx tsx", script, ...process.argv.slice(2)].filter(Boolean).join(" ");
}
