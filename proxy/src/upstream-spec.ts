/**
 * Which local ACP agents the proxy runs for the service: `--upstream
 * id="command line"` (repeatable) and the saved config's `"upstreams"` map
 * (`{"copilot": "copilot --acp --stdio"}`); a flag wins over the saved entry.
 * @module
 */
import { zUpstreamId } from "@hermes-edge/protocol";
import { z } from "zod";
import { UsageError } from "./args.js";
import { ConfigError } from "./config.js";

export type UpstreamCommands = Readonly<Record<string, string>>;

/** One `--upstream id=command`; quotes around the command are the shell's business. */
export function parseUpstreamFlag(raw: string): [id: string, command: string] {
  const eq = raw.indexOf("=");
  if (eq <= 0) throw new UsageError(`--upstream expects id="command", got ${JSON.stringify(raw)}`);
  const id = raw.slice(0, eq).trim();
  const command = raw.slice(eq + 1).trim();
  const parsedId = zUpstreamId.safeParse(id);
  if (!parsedId.success) throw new UsageError(`--upstream ${JSON.stringify(id)}: the id must be ${parsedId.error.issues[0]?.message}`);
  if (command === "") throw new UsageError(`--upstream ${id}: the command is empty`);
  if (/[\r\n\0]/.test(command)) throw new UsageError(`--upstream ${id}: the command must be one line`);
  return [id, command];
}

const zSavedUpstreams = z.record(zUpstreamId, z.string().trim().min(1, "the command is empty")).optional();

/** The saved config's `"upstreams"`, checked; flags override entries with the same id. */
export function upstreamCommands(flags: readonly string[], saved: unknown, configPath: string): UpstreamCommands {
  const raw = typeof saved === "object" && saved !== null ? (saved as { upstreams?: unknown }).upstreams : undefined;
  const parsed = zSavedUpstreams.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${configPath}: "upstreams"${issue?.path.length ? `.${issue.path.join(".")}` : ""}: ${issue?.message ?? "invalid"}`);
  }
  const commands: Record<string, string> = { ...(parsed.data ?? {}) };
  for (const flag of flags) {
    const [id, command] = parseUpstreamFlag(flag);
    commands[id] = command;
  }
  return commands;
}
