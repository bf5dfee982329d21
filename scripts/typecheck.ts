/**
 * `npm run typecheck`: the five TypeScript projects (the Worker and tests, the
 * protocol package, the web client, the browser tests, the proxy), two at a
 * time; `tsc -b` would need every project to be `composite`. Prints each
 * project's errors under its name and exits non-zero when any project fails.
 *
 * TypeScript 7's native `tsc` checks all five in about 10 s of CPU, where
 * TypeScript 5's took about 50. Each runs single-threaded: two at a time keep
 * both cores busy, and inside `npm test` the other lanes want the cores more.
 * @module
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The package exports no `bin/tsc`; its package.json is exported, and the bin lies beside it.
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");
const PROJECTS = [".", "packages/protocol", "web", "test/browser", "proxy/tsconfig.test.json"];
const AT_ONCE = 2;

function check(project: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, "-p", project, "--singleThreaded"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", (code) => {
      // Printed whole when the project ends, so two projects' errors never interleave.
      if (code !== 0) process.stderr.write(`tsc -p ${project} failed:\n${output}\n`);
      resolve(code === 0);
    });
  });
}

async function main(): Promise<void> {
  const queue = [...PROJECTS];
  let ok = true;
  const lane = async () => {
    for (let project = queue.shift(); project !== undefined; project = queue.shift()) ok = (await check(project)) && ok;
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  process.exitCode = ok ? 0 : 1;
}

await main();
