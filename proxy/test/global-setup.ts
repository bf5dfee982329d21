/** Builds dist/ from src/ so the integration tests exercise the current code as shipped. */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const project = fileURLToPath(new URL("../tsconfig.json", import.meta.url));
  execFileSync(process.execPath, [tsc, "-p", project], { stdio: "inherit" });
}
