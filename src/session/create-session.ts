/**
 * `session/new` inside the new session object: write its record, index it in
 * D1, and build the response. The id is chosen by the caller (the connection
 * object) because it also names this Durable Object. A session whose system
 * prompt shows the project memory reads it in the index's batch, so its first
 * turn never waits on D1 for it (memory-snapshot.ts).
 */
import type { NewSessionResponse } from "@agentclientprotocol/sdk";
import { invalidRequest, type McpServerEntry } from "@hermes-edge/protocol";
import type { ModelSettings } from "../config.js";
import { storedMemory, type MemoryStore } from "../db/memory-store.js";
import type { SessionIndex } from "../db/session-index.js";
import { formatMemory } from "../tools/memory-entries.js";
import type { ConnectionRef } from "./connection-ref.js";
import { segmentRow } from "../db/segment-index.js";
import { provenance, rootLineage } from "./provenance.js";
import type { SegmentLineage, SessionKind, SessionRecord } from "./session-record.js";
import type { SessionStore } from "./session-store.js";
import { DEFAULT_MODE } from "./modes.js";
import { DEFAULT_REASONING_EFFORT } from "./config-options.js";

export interface CreateSessionInit {
  sessionId: string;
  cwd: string;
  additionalDirectories: string[];
  kind?: SessionKind;
  parentId?: string | null;
  rootId?: string | null;
  model?: string;
  mode?: string;
  /** For forks and sub-agents: the lineage of the parent's current segment. */
  parentLineage?: SegmentLineage;
  /** A sub-agent: the session whose shares apply to it (its parent's access root). */
  accessRoot?: string | null;
  /** The attaching editor's MCP servers (kept with the attachment, never stored). */
  mcpServers?: McpServerEntry[];
}

export async function createSession(
  store: SessionStore,
  index: SessionIndex,
  conn: ConnectionRef,
  init: CreateSessionInit,
  settings: ModelSettings,
  memory?: MemoryStore,
): Promise<NewSessionResponse> {
  if (store.record()) throw invalidRequest("session already exists");
  const now = new Date();
  const record: SessionRecord = {
    sessionId: init.sessionId,
    tenant: conn.tenant,
    owner: conn.user ?? null,
    accessRoot: init.accessRoot ?? null,
    cwd: init.cwd,
    additionalDirectories: init.additionalDirectories,
    model: init.model ?? settings.defaultModel,
    mode: init.mode ?? DEFAULT_MODE,
    title: null,
    kind: init.kind ?? "root",
    parentId: init.parentId ?? null,
    rootId: init.rootId ?? init.sessionId,
    status: "active",
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    lastStopReason: null,
    interruptedPrompt: null,
    reasoningEffort: DEFAULT_REASONING_EFFORT,
    allowRules: [],
    lastUsage: null,
    segment: 0,
    lineage: rootLineage(
      init.sessionId,
      init.parentLineage && init.kind && init.kind !== "root" ? { lineage: init.parentLineage, kind: init.kind } : undefined,
    ),
  };
  // Index first: a session that cannot be listed must not exist half-made.
  const row = {
    id: record.sessionId,
    tenant: record.tenant,
    owner: record.owner ?? null,
    accessRoot: record.accessRoot ?? null,
    cwd: record.cwd,
    additionalDirectories: record.additionalDirectories,
    title: null,
    model: record.model,
    mode: record.mode,
    kind: record.kind,
    parentId: record.parentId,
    rootId: record.rootId,
    status: "active" as const,
    createdAt: now.getTime(),
    updatedAt: now.getTime(),
  };
  const memoryRows = await index.insert(row, segmentRow(record.sessionId, record.tenant, record.lineage, now.getTime()), memory?.read(record.tenant, record.cwd));
  if (memoryRows) record.memorySnapshot = { segment: record.segment, cwd: record.cwd, text: formatMemory(storedMemory(memoryRows).entries) };
  store.saveRecord(record);
  return { sessionId: record.sessionId, _meta: { hermes: { sessionProvenance: provenance(record.sessionId, record.lineage) } } };
}
