/**
 * What a client needs from the agent's `initialize` result: the protocol
 * version, whether sessions can be resumed or loaded, and who the agent is.
 * @module
 */
import * as z from "zod";
import { loose } from "./loose.js";

const zInitializeResult = loose({
  protocolVersion: z.number().int(),
  agentCapabilities: loose({
    loadSession: z.boolean().nullish(),
    sessionCapabilities: loose({ resume: z.unknown() }).nullish(),
  }).nullish(),
  agentInfo: loose({ name: z.string(), version: z.string() }).nullish(),
});

export interface InitializeInfo {
  readonly protocolVersion: number;
  readonly canResume: boolean;
  readonly canLoad: boolean;
  readonly agentName?: string;
  readonly agentVersion?: string;
}

export function readInitializeResult(result: unknown): InitializeInfo | undefined {
  const parsed = zInitializeResult.safeParse(result);
  if (!parsed.success) return undefined;
  const { protocolVersion, agentCapabilities, agentInfo } = parsed.data;
  const resume = agentCapabilities?.sessionCapabilities?.resume;
  return {
    protocolVersion,
    // ACP: omitted or null means "not supported"; `{}` means supported.
    canResume: resume !== undefined && resume !== null,
    canLoad: agentCapabilities?.loadSession === true,
    ...(agentInfo ? { agentName: agentInfo.name, agentVersion: agentInfo.version } : {}),
  };
}
