/**
 * What one session looks like in the page, built from its `session/update`
 * notifications: messages, thoughts, tool calls (a sub-agent's relayed calls
 * nested under the delegate call that spawned them), plan, usage, commands
 * and config options. Pure and immutable, so it is tested in Node and Preact
 * re-renders on identity.
 * @module
 */
import { readAuthor } from "@hermes-edge/protocol";
import type {
  AvailableCommand,
  ContentBlock,
  PlanEntry,
  SessionConfigOption,
  SessionNotification,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolKind,
} from "@agentclientprotocol/sdk";

export interface SubagentTask {
  readonly taskIndex: number;
  readonly subagentId: string | null;
  readonly state: string;
}

export interface ToolCallView {
  readonly toolCallId: string;
  readonly title: string;
  readonly kind: ToolKind;
  readonly status: ToolCallStatus;
  readonly content: readonly ToolCallContent[];
  readonly locations: readonly ToolCallLocation[];
  readonly rawOutput?: unknown;
  /** Set on a sub-agent's relayed call: the delegate call it belongs to. */
  readonly parentToolCallId?: string;
  readonly subagentId?: string;
  /** Set on a delegate call: one entry per task. */
  readonly subagents?: readonly SubagentTask[];
}

export type PromptState = "sent" | "queued" | "failed";

export type Entry =
  | {
      readonly kind: "user";
      readonly key: string;
      readonly blocks: readonly ContentBlock[];
      readonly state?: PromptState;
      readonly error?: string;
      /** Who wrote it (`_meta.hermes.author`), for prompts of a shared session. */
      readonly author?: string;
    }
  | { readonly kind: "agent" | "thought"; readonly key: string; readonly messageId?: string; readonly text: string }
  | { readonly kind: "tool"; readonly key: string }
  | { readonly kind: "notice"; readonly key: string; readonly tone: "info" | "warning" | "error"; readonly text: string };

export interface Transcript {
  readonly entries: readonly Entry[];
  readonly tools: Readonly<Record<string, ToolCallView>>;
  readonly plan: readonly PlanEntry[];
  readonly usage: { readonly used: number; readonly size: number } | null;
  readonly commands: readonly AvailableCommand[];
  readonly configOptions: readonly SessionConfigOption[];
  readonly title: string | null;
  /** The page's prompts waiting behind a running turn; they join `entries` when their turn starts. */
  readonly queued: readonly { readonly key: string; readonly blocks: readonly ContentBlock[] }[];
  /** The highest `_meta.hermes.seq` applied; a replayed copy of an older update is ignored. */
  readonly lastSeq: number;
}

export function emptyTranscript(): Transcript {
  return { entries: [], tools: {}, plan: [], usage: null, commands: [], configOptions: [], title: null, queued: [], lastSeq: 0 };
}

type Meta = { readonly [key: string]: unknown } | null | undefined;

function hermesMeta(meta: Meta): Record<string, unknown> {
  const hermes = meta?.hermes;
  return typeof hermes === "object" && hermes !== null ? (hermes as Record<string, unknown>) : {};
}

function seqOf(notification: SessionNotification): number | undefined {
  const seq = hermesMeta(notification._meta).seq;
  return typeof seq === "number" ? seq : undefined;
}

function textOf(block: ContentBlock): string {
  return block.type === "text" ? block.text : "";
}

/** Appends a chunk to the last entry when it continues the same message, else starts one. */
function appendChunk(t: Transcript, kind: "agent" | "thought", text: string, messageId: string | undefined): Transcript {
  const last = t.entries.at(-1);
  if (last && last.kind === kind && (last.messageId ?? null) === (messageId ?? null)) {
    return { ...t, entries: [...t.entries.slice(0, -1), { ...last, text: last.text + text }] };
  }
  const key = `${kind}:${messageId ?? t.entries.length}`;
  return { ...t, entries: [...t.entries, { kind, key, text, ...(messageId ? { messageId } : {}) }] };
}

function appendUser(t: Transcript, block: ContentBlock, messageId: string | undefined, author: string | undefined): Transcript {
  const last = t.entries.at(-1);
  if (last?.kind === "user" && messageId && last.key === `user:${messageId}`) {
    return { ...t, entries: [...t.entries.slice(0, -1), { ...last, blocks: [...last.blocks, block] }] };
  }
  return { ...t, entries: [...t.entries, { kind: "user", key: `user:${messageId ?? t.entries.length}`, blocks: [block], ...(author ? { author } : {}) }] };
}

function subagentsOf(meta: Meta): SubagentTask[] | undefined {
  const list = hermesMeta(meta).subagents;
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((item: unknown) => {
    if (typeof item !== "object" || item === null) return [];
    const { taskIndex, subagentId, state } = item as Record<string, unknown>;
    if (typeof taskIndex !== "number" || typeof state !== "string") return [];
    return [{ taskIndex, subagentId: typeof subagentId === "string" ? subagentId : null, state }];
  });
}

function relayOf(meta: Meta): { parentToolCallId?: string; subagentId?: string } {
  const { parentToolCallId, subagentId } = hermesMeta(meta);
  return typeof parentToolCallId === "string" && typeof subagentId === "string" ? { parentToolCallId, subagentId } : {};
}

function upsertTool(t: Transcript, id: string, patch: Partial<ToolCallView>, isNew: boolean): Transcript {
  const existing = t.tools[id];
  const base: ToolCallView = existing ?? { toolCallId: id, title: "Tool call", kind: "other", status: "pending", content: [], locations: [] };
  const merged: ToolCallView = { ...base, ...patch };
  const tools = { ...t.tools, [id]: merged };
  // Relayed calls live under their delegate call, not in the main list.
  const listed = !existing && !merged.parentToolCallId && (isNew || patch.title !== undefined);
  return { ...t, tools, entries: listed ? [...t.entries, { kind: "tool", key: id }] : t.entries };
}

const defined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;

function notice(t: Transcript, tone: "info" | "warning" | "error", text: string): Transcript {
  return { ...t, entries: [...t.entries, { kind: "notice", key: `notice:${t.entries.length}`, tone, text }] };
}

export function applyUpdate(t: Transcript, notification: SessionNotification): Transcript {
  const seq = seqOf(notification);
  if (seq !== undefined && seq <= t.lastSeq) return t;
  const next = applyKnown(t, notification);
  return seq === undefined ? next : { ...next, lastSeq: seq };
}

function applyKnown(t: Transcript, { update }: SessionNotification): Transcript {
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      return appendChunk(t, "agent", textOf(update.content), update.messageId ?? undefined);
    case "agent_thought_chunk":
      return appendChunk(t, "thought", textOf(update.content), update.messageId ?? undefined);
    case "user_message_chunk":
      return appendUser(t, update.content, update.messageId ?? undefined, readAuthor(update._meta)?.user);
    case "tool_call":
      return upsertTool(
        t,
        update.toolCallId,
        defined({
          title: update.title,
          kind: update.kind ?? "other",
          status: update.status ?? "pending",
          content: update.content ?? [],
          locations: update.locations ?? [],
          rawOutput: update.rawOutput,
          subagents: subagentsOf(update._meta),
          ...relayOf(update._meta),
        }),
        true,
      );
    case "tool_call_update":
      return upsertTool(
        t,
        update.toolCallId,
        defined({
          title: update.title ?? undefined,
          kind: update.kind ?? undefined,
          status: update.status ?? undefined,
          content: update.content ?? undefined,
          locations: update.locations ?? undefined,
          rawOutput: update.rawOutput,
          subagents: subagentsOf(update._meta),
          ...relayOf(update._meta),
        }),
        false,
      );
    case "plan":
      return { ...t, plan: update.entries };
    case "usage_update":
      return { ...t, usage: { used: update.used, size: update.size } };
    case "available_commands_update":
      return { ...t, commands: update.availableCommands };
    case "config_option_update":
      return { ...t, configOptions: update.configOptions };
    case "current_mode_update":
      return {
        ...t,
        configOptions: t.configOptions.map((o) => (o.category === "mode" && o.type === "select" ? { ...o, currentValue: update.currentModeId } : o)),
      };
    case "session_info_update": {
      const provenance = hermesMeta(update._meta).sessionProvenance as { reason?: string; compressionDepth?: number } | undefined;
      const titled = update.title ? { ...t, title: update.title } : t;
      if (provenance?.reason !== "compression") return titled;
      return notice(titled, "info", `Context compacted: older turns were summarized (compaction ${provenance.compressionDepth ?? "?"}).`);
    }
    case "compaction_update":
      return update.status === "completed" ? t : notice(t, update.status === "failed" ? "warning" : "info", `Compaction ${update.status}${update.error ? `: ${update.error}` : ""}`);
    case "notice":
      return notice(t, update.severity === "error" ? "error" : update.severity === "warning" ? "warning" : "info", update.description ? `${update.title}: ${update.description}` : update.title);
    default:
      return t;
  }
}

/**
 * The page's own prompt, shown at once (the service does not echo a
 * prompter's message back to it). A queued one waits apart, so the running
 * turn's answer keeps streaming above it.
 */
export function addLocalPrompt(t: Transcript, key: string, blocks: readonly ContentBlock[], state: PromptState): Transcript {
  if (state === "queued") return { ...t, queued: [...t.queued, { key, blocks }] };
  return { ...t, entries: [...t.entries, { kind: "user", key, blocks, state }] };
}

/** A prompt's turn started ("sent") or it failed; a queued one moves into the conversation. */
export function setPromptState(t: Transcript, key: string, state: PromptState, error?: string): Transcript {
  const waiting = t.queued.find((q) => q.key === key);
  if (waiting) {
    const entry: Entry = { kind: "user", key, blocks: waiting.blocks, state, ...(error ? { error } : {}) };
    return { ...t, queued: t.queued.filter((q) => q.key !== key), entries: [...t.entries, entry] };
  }
  return {
    ...t,
    entries: t.entries.map((e) => (e.kind === "user" && e.key === key ? { ...e, state, ...(error ? { error } : {}) } : e)),
  };
}

export function addNotice(t: Transcript, tone: "info" | "warning" | "error", text: string): Transcript {
  return notice(t, tone, text);
}

/** The relayed calls of one sub-agent under a delegate call, in arrival order. */
export function childCalls(t: Transcript, parentToolCallId: string, subagentId: string | null): ToolCallView[] {
  return Object.values(t.tools).filter((c) => c.parentToolCallId === parentToolCallId && (subagentId === null || c.subagentId === subagentId));
}
