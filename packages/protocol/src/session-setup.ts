/**
 * The few ACP fields a reconnecting client must remember to re-attach a
 * session: its id and setup (`cwd`, MCP servers, extra roots), and the
 * `session/resume` (or `session/load`) that re-attaches it after `afterSeq`.
 * @module
 */
import type { LoadSessionRequest, ResumeSessionRequest } from "@agentclientprotocol/sdk";
import * as z from "zod";
import { afterSeqMeta } from "./hermes-meta.js";
import { loose } from "./loose.js";

/** What `session/resume` needs again after a reconnect. MCP server entries stay opaque. */
const zSessionSetup = loose({
  cwd: z.string(),
  mcpServers: z.array(z.unknown()).optional(),
  additionalDirectories: z.array(z.string()).optional(),
});
export type SessionSetup = z.infer<typeof zSessionSetup>;

const zSessionRef = loose({ sessionId: z.string() });

/** `session/new`, `session/load` and `session/resume` params → the setup to replay. */
export function readSessionSetup(params: unknown): SessionSetup | undefined {
  const parsed = zSessionSetup.safeParse(params);
  return parsed.success ? parsed.data : undefined;
}

/** Any params or result carrying `sessionId`. */
export function readSessionId(value: unknown): string | undefined {
  const parsed = zSessionRef.safeParse(value);
  return parsed.success ? parsed.data.sessionId : undefined;
}

/** The params of a re-attaching request (MCP servers stay opaque). */
export type ReattachParams = Omit<ResumeSessionRequest & LoadSessionRequest, "mcpServers"> & { mcpServers: unknown[] };

/**
 * Builds the params of a client's own `session/resume` (or `session/load`)
 * after a reconnect. `afterSeq` asks the service for only what was missed.
 * @param fallbackCwd used for a session whose setup was never seen (the
 *   service requires `cwd`; editors start agents in the project root).
 */
export function reattachParams(sessionId: string, setup: SessionSetup | undefined, afterSeq: number, fallbackCwd: string): ReattachParams {
  return {
    sessionId,
    cwd: setup?.cwd ?? fallbackCwd,
    mcpServers: setup?.mcpServers ?? [],
    ...(setup?.additionalDirectories ? { additionalDirectories: setup.additionalDirectories } : {}),
    _meta: afterSeqMeta(afterSeq),
  };
}
