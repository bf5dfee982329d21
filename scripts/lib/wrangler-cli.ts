/**
 * Runs the `wrangler` found on PATH (npm puts this clone's first; the clone's
 * own is the fallback). Secrets go to its stdin, never into its arguments.
 * @module
 */
import { spawn } from "node:child_process";
import { delimiter, join } from "node:path";

export interface WranglerResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface WranglerOptions {
  cwd: string;
  /** Written to wrangler's stdin, which is then closed (how `secret put` reads a value). */
  input?: string;
  /** Let wrangler ask the user (its confirmations) when we run on a terminal. */
  interactive?: boolean;
  /** Show wrangler's output as it runs (on our stderr; our stdout stays for results). */
  echo?: boolean;
}

export function wranglerPath(root: string): string {
  return [process.env.PATH ?? "", join(root, "node_modules", ".bin")].filter(Boolean).join(delimiter);
}

export function formatCommand(args: readonly string[]): string {
  return ["wrangler", ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");
}

export function runWrangler(args: readonly string[], root: string, options: WranglerOptions): Promise<WranglerResult> {
  return new Promise((resolve, reject) => {
    const stdin = options.input !== undefined ? "pipe" : options.interactive && process.stdin.isTTY ? "inherit" : "ignore";
    const child = spawn("wrangler", args, {
      cwd: options.cwd,
      env: { ...process.env, PATH: wranglerPath(root) },
      stdio: [stdin, "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.echo) process.stderr.write(chunk);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (options.echo) process.stderr.write(chunk);
    });
    child.once("error", (err) => reject(new Error(`could not run wrangler: ${err.message}`)));
    child.once("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** The JSON wrangler printed, ignoring any banner or log lines before it. */
export function jsonOutput(stdout: string): unknown {
  const start = stdout.search(/^[[{]/m);
  if (start < 0) return undefined;
  try {
    return JSON.parse(stdout.slice(start));
  } catch {
    return undefined;
  }
}
