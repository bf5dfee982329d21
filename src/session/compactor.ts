/**
 * Runs a compaction: the model summarizes the older turns, a new segment
 * starts with that summary and the latest turn, D1 records the rotation, and
 * the editor hears about it. Any failure leaves the history as it was.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { agentMessageChunk } from "../acp/updates.js";
import { splitForCompaction, summaryMessage, summaryRequest } from "../agent/compaction.js";
import type { ModelProvider, ModelUsage } from "../agent/model-provider.js";
import { continuationOf, provenance } from "./provenance.js";
import type { TurnContext } from "./turn-context.js";

export type CompactionResult = { status: "completed"; summary: string } | { status: "failed"; error: string } | { status: "skipped" };

/** @param beforeTurn true when the turn's prompt is already in history and must be kept verbatim. */
export async function compactHistory(ctx: TurnContext, provider: ModelProvider, beforeTurn: boolean): Promise<CompactionResult> {
  const { store, signal } = ctx;
  const { older, kept } = splitForCompaction(store.history(), beforeTurn);
  if (older.length === 0) return { status: "skipped" };
  const record = ctx.record();
  const compactionId = ctx.newId();
  const native = ctx.client.capabilities.session?.compaction != null;
  const emit = (update: SessionUpdate) => ctx.announce(update);
  if (native) emit({ sessionUpdate: "compaction_update", compactionId, status: "in_progress" });

  let summary = "";
  let counted = false;
  const count = (usage: ModelUsage | undefined) => {
    if (!counted) ctx.countModelCall(usage);
    counted = true;
  };
  try {
    const stream = provider.stream({ model: record.model, messages: summaryRequest(older), tools: [], signal });
    let next = await stream.next();
    for (; !next.done; next = await stream.next()) {
      if (next.value.type !== "text") continue;
      summary += next.value.text;
      if (native) emit({ sessionUpdate: "compaction_summary_chunk", compactionId, content: { type: "text", text: next.value.text } });
    }
    count(next.value.usage);
    if (!summary.trim()) throw new Error("the model returned an empty summary");
    const lineage = continuationOf(record.lineage, ctx.newId());
    // D1 first: if the index cannot record the rotation, nothing changes locally either.
    await ctx.session.segments.rotate(record.sessionId, record.tenant, record.lineage.currentId, lineage, Date.now());
    const segment = record.segment + 1;
    store.appendHistory(summaryMessage(summary), segment);
    for (const message of kept) store.appendHistory(message, segment);
    store.updateRecord({ segment, lineage });
  } catch (err) {
    count(undefined); // a call that failed counts, as in a turn, without tokens
    const error = signal.aborted ? "cancelled" : err instanceof Error ? err.message : String(err);
    if (native) emit({ sessionUpdate: "compaction_update", compactionId, status: signal.aborted ? "cancelled" : "failed", error });
    else emit(agentMessageChunk(`⚠️ Compacting the conversation failed (${error}); the full history is kept.`, ctx.newId()));
    return { status: "failed", error };
  }
  const sessionProvenance = provenance(record.sessionId, ctx.record().lineage, true);
  if (native) {
    emit({ sessionUpdate: "compaction_update", compactionId, status: "completed", summary: [{ type: "text", text: summary }], _meta: { hermes: { sessionProvenance } } });
  }
  emit({ sessionUpdate: "session_info_update", updatedAt: new Date().toISOString(), _meta: { hermes: { sessionProvenance } } });
  return { status: "completed", summary };
}
