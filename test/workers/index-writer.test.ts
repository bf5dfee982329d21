/**
 * The session's write-behind to the D1 index, on real DO SQLite: a turn's end
 * writes `updatedAt` at most every `TOUCH_EVERY_MS`, anything else at once,
 * and what waits is kept in the session's storage until D1 has it.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SessionIndex, type SessionPatch } from "../../src/db/session-index.js";
import { IndexWriter, TOUCH_EVERY_MS } from "../../src/session/index-writer.js";
import type { SessionRecord } from "../../src/session/session-record.js";
import { SessionStore } from "../../src/session/session-store.js";
import { sleep } from "./acp-test-client.js";

class CountingIndex extends SessionIndex {
  writes: SessionPatch[] = [];
  override async update(_id: string, patch: SessionPatch): Promise<void> {
    this.writes.push(patch);
  }
}

function inFreshSessionObject<R>(run: (store: SessionStore) => Promise<R>): Promise<R> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`index-writer-${crypto.randomUUID()}`));
  return runInDurableObject(stub, async (_instance, ctx) => {
    const store = new SessionStore(ctx.storage.sql);
    store.migrate();
    store.saveRecord({ sessionId: crypto.randomUUID() } as SessionRecord);
    return run(store);
  });
}

describe("IndexWriter", () => {
  it("writes a turn's updatedAt at most every TOUCH_EVERY_MS and the rest at once", async () => {
    await inFreshSessionObject(async (store) => {
      const index = new CountingIndex(env.DB);
      let clock = 1_000_000;
      const writer = new IndexWriter(store, index, () => clock);
      await writer.touch(); // the first one goes out
      clock += 100;
      expect(writer.touch()).toBeNull(); // within the interval: kept
      clock += 100;
      expect(writer.touch()).toBeNull();
      expect(index.writes).toEqual([{ updatedAt: 1_000_000 }]);
      expect(store.pendingIndexPatch()).toEqual({ updatedAt: 1_000_200 });
      writer.update({ title: "Named" }); // a title never waits
      await writer.flush();
      expect(index.writes.at(-1)).toEqual({ updatedAt: 1_000_200, title: "Named" });
      expect(store.pendingIndexPatch()).toBeNull();
      clock += TOUCH_EVERY_MS;
      await writer.touch();
      expect(index.writes.at(-1)).toEqual({ updatedAt: 1_000_200 + TOUCH_EVERY_MS });
    });
  });

  it("writes a kept updatedAt once the interval is over", async () => {
    await inFreshSessionObject(async (store) => {
      const index = new CountingIndex(env.DB);
      const writer = new IndexWriter(store, index);
      await writer.touch();
      expect(writer.touch()).toBeNull();
      expect(index.writes).toHaveLength(1);
      await sleep(TOUCH_EVERY_MS + 200);
      expect(index.writes).toHaveLength(2);
      expect(store.pendingIndexPatch()).toBeNull();
    });
  });

  it("keeps a turn's updatedAt past the next turn's first output when the interval is not over", async () => {
    await inFreshSessionObject(async (store) => {
      const index = new CountingIndex(env.DB);
      let clock = 1_000_000;
      const writer = new IndexWriter(store, index, () => clock);
      await writer.touch(); // written: the first one
      clock += 100;
      expect(writer.touch()).toBeNull(); // the turn ended within the interval: kept
      // The next turn holds the writer until the model's first output, then lets it go:
      // a kept updatedAt alone is not due yet, so D1 is not written on the first token's path.
      writer.hold();
      clock += 100;
      await writer.release();
      expect(index.writes).toEqual([{ updatedAt: 1_000_000 }]);
      // What is due goes at release: a title, or an updatedAt whose interval is over.
      writer.hold();
      writer.update({ title: "Named" });
      expect(index.writes).toHaveLength(1);
      await writer.release();
      expect(index.writes.at(-1)).toEqual({ updatedAt: 1_000_200, title: "Named" });
      expect(writer.touch()).toBeNull();
      writer.hold();
      clock += TOUCH_EVERY_MS;
      await writer.release();
      expect(index.writes.at(-1)).toEqual({ updatedAt: 1_000_200 });
      expect(store.pendingIndexPatch()).toBeNull();
    });
  });

  it("hands what is pending to another D1 batch; once that batch has it, the writer does not write it again", async () => {
    await inFreshSessionObject(async (store) => {
      const index = new CountingIndex(env.DB);
      const writer = new IndexWriter(store, index);
      expect(writer.pendingStatement()).toBeNull();
      await writer.touch(); // written by itself: the first one
      expect(writer.touch()).toBeNull(); // kept: its own write would go TOUCH_EVERY_MS later
      const pending = writer.pendingStatement()!;
      expect(pending.statement.toSQL().sql).toMatch(/^update "sessions" set "updated_at" = \?/);
      // What the search feed does once its batch, with the statement in it, succeeded.
      pending.written();
      expect(store.pendingIndexPatch()).toBeNull();
      await sleep(TOUCH_EVERY_MS + 200);
      expect(index.writes).toHaveLength(1);
    });
  });

  it("keeps pending what was merged in while another batch carried the write", async () => {
    await inFreshSessionObject(async (store) => {
      const index = new CountingIndex(env.DB);
      let clock = 1_000_000;
      const writer = new IndexWriter(store, index, () => clock);
      writer.hold();
      writer.update({ status: "active" });
      const pending = writer.pendingStatement()!;
      clock += 10;
      writer.update({ title: "Named" });
      pending.written();
      // The status went with the batch; the title and the newer time did not.
      expect(store.pendingIndexPatch()).toEqual({ title: "Named", updatedAt: 1_000_010 });
      await writer.release();
      expect(index.writes).toEqual([{ title: "Named", updatedAt: 1_000_010 }]);
    });
  });

  it("does not write a title again when the turn ends while its write is on its way; the newer time waits for its turn", async () => {
    await inFreshSessionObject(async (store) => {
      let land!: () => void;
      const landed = new Promise<void>((resolve) => (land = resolve));
      class SlowIndex extends CountingIndex {
        override async update(id: string, patch: SessionPatch): Promise<void> {
          await super.update(id, patch);
          await landed;
        }
      }
      const index = new SlowIndex(env.DB);
      let clock = 1_000_000;
      const writer = new IndexWriter(store, index, () => clock);
      writer.hold();
      writer.update({ title: "Named" });
      void writer.release(); // the turn's first output: the title goes out, and D1 is slow
      clock += 50;
      const ended = writer.touch(); // the turn ends before D1 has the title: its answer waits for it
      expect(ended).not.toBeNull();
      land();
      await ended;
      expect(index.writes).toEqual([{ title: "Named", updatedAt: 1_000_000 }]);
      // Only the turn's time is left, for the search feed's batch or the interval's end.
      expect(store.pendingIndexPatch()).toEqual({ updatedAt: 1_000_050 });
      expect(writer.pendingStatement()).not.toBeNull();
    });
  });
});
