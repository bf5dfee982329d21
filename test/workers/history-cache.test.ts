/**
 * The history a session object holds between turns is a cache over its rows:
 * what it hands out after appends, a new segment (compaction, /reset), a
 * fork's bounded read and a restart (a fresh store over the same storage)
 * is always what the rows say. So are the prompt queue and the last history
 * row's id, which the store also keeps instead of reading them every turn.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/agent/compaction.js";
import type { ChatMessage } from "../../src/agent/model-provider.js";
import type { SessionRecord } from "../../src/session/session-record.js";
import { SessionStore } from "../../src/session/session-store.js";

const turn = (n: number): ChatMessage[] => [
  { role: "user", content: `question ${n}` },
  { role: "assistant", content: null, tool_calls: [{ id: `c${n}`, type: "function", function: { name: "read_file", arguments: `{"n":${n}}` } }] },
  { role: "tool", tool_call_id: `c${n}`, content: `output ${n}` },
  { role: "assistant", content: `answer ${n}` },
];

function inFreshObject(run: (sql: SqlStorage) => void): Promise<void> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`history-cache-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, ctx) => run(ctx.storage.sql));
}

/** The current segment as the rows hold it, read past any cache. */
const rows = (sql: SqlStorage, segment: number) =>
  sql.exec<{ body: string }>(`SELECT body FROM history WHERE segment = ? ORDER BY id`, segment).toArray().map((r) => JSON.parse(r.body) as ChatMessage);

describe("the history cache of a session object", () => {
  it("gives the stored history across turns, a new segment, a bounded read and a restart", async () => {
    await inFreshObject((sql) => {
      const store = new SessionStore(sql);
      store.migrate();
      store.saveRecord({ sessionId: "s-cache", tenant: "alpha", segment: 0 } as SessionRecord);
      for (const m of turn(1)) store.appendHistory(m);
      expect(store.history()).toEqual(turn(1));
      // Turns append to what is held; the estimate follows without a walk.
      let lastOfTurn2 = 0;
      for (const m of turn(2)) lastOfTurn2 = store.appendHistory(m);
      for (const m of turn(3)) store.appendHistory(m);
      expect(store.history()).toEqual([...turn(1), ...turn(2), ...turn(3)]);
      expect(store.history()).toEqual(rows(sql, 0));
      expect(store.historyTokens()).toBe(estimateTokens(rows(sql, 0)));
      // A fork's bounded read comes from the rows.
      expect(store.history({ untilId: lastOfTurn2 })).toEqual([...turn(1), ...turn(2)]);

      // Compaction: the new segment's rows are written first, then the record moves to it.
      const summary: ChatMessage = { role: "user", content: "Summary of the earlier conversation" };
      store.appendHistory(summary, 1);
      for (const m of turn(4)) store.appendHistory(m, 1);
      expect(store.history()).toEqual([...turn(1), ...turn(2), ...turn(3)]); // not moved yet
      store.updateRecord({ segment: 1 });
      expect(store.history()).toEqual([summary, ...turn(4)]);
      expect(store.historyTokens()).toBe(estimateTokens([summary, ...turn(4)]));
      expect(store.history({ segment: 0 })).toEqual(rows(sql, 0));

      // A restart: a fresh store over the same storage reads the rows.
      for (const m of turn(5)) store.appendHistory(m);
      const fresh = new SessionStore(sql);
      expect(fresh.history()).toEqual([summary, ...turn(4), ...turn(5)]);
      expect(fresh.historyTokens()).toBe(store.historyTokens());

      // /reset starts an empty segment.
      store.clearHistory();
      expect(store.history()).toEqual([]);
      expect(store.historyTokens()).toBe(0);
    });
  });

  it("answers no history once the storage is being wiped", async () => {
    await inFreshObject((sql) => {
      const store = new SessionStore(sql);
      store.migrate();
      store.saveRecord({ sessionId: "s-closed", tenant: "alpha", segment: 0 } as SessionRecord);
      store.appendHistory({ role: "user", content: "hello" });
      expect(store.history()).toHaveLength(1);
      store.close();
      sql.exec(`DELETE FROM history`);
      expect(store.history()).toEqual([]);
    });
  });

  it("keeps the prompt queue and the last history id as the rows say, across a restart", async () => {
    await inFreshObject((sql) => {
      const store = new SessionStore(sql);
      store.migrate();
      store.saveRecord({ sessionId: "s-queue", tenant: "alpha", segment: 0 } as SessionRecord);
      const queuedInRows = () =>
        sql.exec<{ id: number }>(`SELECT id FROM prompts WHERE state = 'queued' ORDER BY id`).toArray().map((r) => r.id);
      const maxHistoryId = () => sql.exec<{ id: number | null }>(`SELECT MAX(id) AS id FROM history`).one().id ?? 0;
      expect(store.lastHistoryId()).toBe(0);

      const a = store.enqueuePrompt("c1", 1, [{ type: "text", text: "first" }], 1);
      const b = store.enqueuePrompt("c1", "two", [{ type: "text", text: "second" }], 2);
      const c = store.enqueuePrompt(null, null, [{ type: "text", text: "third" }], 3);
      expect(store.promptsIn("queued").map((r) => r.id)).toEqual(queuedInRows());
      expect(store.promptsIn("queued").map((r) => r.requestId)).toEqual([1, "two", null]);

      // The first runs (its prompt stored as a reference to its row), the third is cancelled meanwhile.
      store.setPromptState(a.id, "running");
      store.appendPrompt(a.prompt);
      store.setPromptState(c.id, "done", "cancelled");
      expect(store.isQueued(a.id)).toBe(false);
      expect(store.isQueued(b.id)).toBe(true);
      expect(store.isQueued(c.id)).toBe(false);
      expect(store.promptsIn("queued").map((r) => r.id)).toEqual(queuedInRows());
      expect(store.promptsIn("running").map((r) => r.id)).toEqual([a.id]);
      expect(sql.exec(`SELECT prompt_id FROM history`).one().prompt_id).toBe(a.id);
      store.appendHistory({ role: "assistant", content: "answer" });
      expect(store.lastHistoryId()).toBe(maxHistoryId());

      // A restart: a fresh store reads the same queue, and its prompts run as stored.
      const fresh = new SessionStore(sql);
      expect(fresh.promptsIn("queued")).toEqual([{ ...b, prompt: [{ type: "text", text: "second" }] }]);
      expect(fresh.lastHistoryId()).toBe(maxHistoryId());
      fresh.setPromptState(b.id, "done", "end_turn");
      expect(fresh.promptsIn("queued")).toEqual([]);
      expect(queuedInRows()).toEqual([]);

      // A store being wiped has nothing queued.
      const d = store.enqueuePrompt("c1", 4, [{ type: "text", text: "fourth" }], 4);
      store.close();
      expect(store.promptsIn("queued")).toEqual([]);
      expect(store.isQueued(d.id)).toBe(false);
    });
  });
});
