/**
 * Logging for the proxy. Every line goes to stderr: stdout belongs to the ACP
 * stream, and a single stray byte there corrupts the editor's JSON-RPC framing.
 * @module
 */
import { z } from "zod";

export const zLogLevel = z.enum(["error", "warn", "info", "debug"]);
export type LogLevel = z.infer<typeof zLogLevel>;

const rank: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** Where log lines are written; stderr unless a test hands in a collector. */
export type LogSink = (line: string) => void;

const stderrSink: LogSink = (line) => {
  process.stderr.write(line + "\n");
};

export function createLogger(level: LogLevel, sink: LogSink = stderrSink): Logger {
  const emit = (at: LogLevel, message: string): void => {
    if (rank[at] > rank[level]) return;
    sink(`[hermes-edge-proxy] ${new Date().toISOString()} ${at}: ${message}`);
  };
  return {
    error: (m) => emit("error", m),
    warn: (m) => emit("warn", m),
    info: (m) => emit("info", m),
    debug: (m) => emit("debug", m),
  };
}

/**
 * Points every `console` method at stderr. Dependencies (or a future one) that
 * call `console.log` would otherwise write into the ACP stream.
 */
export function keepConsoleOffStdout(): void {
  const toStderr = (...args: unknown[]): void => {
    console.error(...args);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.trace = toStderr;
  console.dir = toStderr;
  console.table = toStderr;
}
