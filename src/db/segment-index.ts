/**
 * D1 reads and writes of segments: created with a session (in its index
 * row's batch, `SessionIndex.insert`), rotated atomically
 * by compaction (`db.batch`, since D1 has no interactive transactions), walked
 * for lineage with a bound on the number of links.
 */
import { and, desc, eq } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { segments, type SegmentRow } from "../../schema/segments.js";
import type { SegmentLineage } from "../session/session-record.js";

export const MAX_LINEAGE_LINKS = 100;

export class SegmentIndex {
  readonly #db: DrizzleD1Database;

  constructor(d1: D1Database) {
    this.#db = drizzle(d1);
  }

  /** Ends `previousId` by compression and starts `next`, in one batch. */
  async rotate(acpSessionId: string, tenant: string, previousId: string, next: SegmentLineage, now: number): Promise<void> {
    await this.#db.batch([
      this.#db
        .update(segments)
        .set({ status: "ended", endReason: "compression", endedAt: now })
        .where(and(eq(segments.id, previousId), eq(segments.tenant, tenant))),
      this.#db.insert(segments).values(segmentRow(acpSessionId, tenant, next, now)),
    ]);
  }

  /** The newest segment of an ACP session (the one the model sees). */
  async current(tenant: string, acpSessionId: string): Promise<SegmentRow | undefined> {
    const rows = await this.#db
      .select()
      .from(segments)
      .where(and(eq(segments.tenant, tenant), eq(segments.acpSessionId, acpSessionId)))
      .orderBy(desc(segments.createdAt), desc(segments.compressionDepth))
      .limit(1);
    return rows[0];
  }

  /** The chain from `startId` back to its root (at most `MAX_LINEAGE_LINKS` links), newest first. */
  async chain(tenant: string, startId: string): Promise<SegmentRow[]> {
    const chain: SegmentRow[] = [];
    let id: string | null = startId;
    while (id && chain.length < MAX_LINEAGE_LINKS) {
      const found: SegmentRow | undefined = (
        await this.#db.select().from(segments).where(and(eq(segments.id, id), eq(segments.tenant, tenant))).limit(1)
      )[0];
      if (!found) break;
      chain.push(found);
      id = found.parentId;
    }
    return chain;
  }
}

/** A segment's row as it starts (with its session, `SessionIndex.insert`, or by compaction). */
export function segmentRow(acpSessionId: string, tenant: string, lineage: SegmentLineage, now: number) {
  return {
    id: lineage.currentId,
    acpSessionId,
    tenant,
    kind: lineage.kind,
    parentId: lineage.parentId,
    rootId: lineage.rootId,
    compressionDepth: lineage.compressionDepth,
    createdAt: now,
  };
}
