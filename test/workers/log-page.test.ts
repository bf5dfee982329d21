/**
 * `UpdateLog.page`, what a resumed SSE stream reads (through `SessionRpc.logAfter`)
 * when its buffer does not reach back: the real UpdateLog on a session
 * object's SQLite, paged and bounded, only for an attached connection, and
 * without the `_hermes/turn_ended` frames a client did not ask for.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentMessageChunk, userMessageChunk } from "../../src/acp/updates.js";
import type { SessionRecord } from "../../src/session/session-record.js";
import { LOG_PAGE_SIZE, SessionStore } from "../../src/session/session-store.js";
import { UpdateLog } from "../../src/session/update-log.js";

const SESSION_ID = "s-log-page";
const PLAIN = { connectionId: "conn-plain", tenant: "alpha", clientCapabilities: {} };
const WANTS_TURN_ENDED = { connectionId: "conn-te", tenant: "alpha", clientCapabilities: { _meta: { hermes: { turnEnded: true } } } };

function withLog<T>(run: (log: UpdateLog, store: SessionStore, sql: SqlStorage) => T): Promise<T> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`log-page-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, ctx) => {
    const store = new SessionStore(ctx.storage.sql);
    store.migrate();
    store.saveRecord({ sessionId: SESSION_ID, tenant: "alpha", interruptedPrompt: null } as SessionRecord);
    return run(new UpdateLog(store, () => async () => true), store, ctx.storage.sql);
  });
}

describe("UpdateLog.page (a resumed SSE stream's catch-up)", () => {
  it("pages the log after a seq with each frame's seq, leaving out a turn_ended the client did not ask for", async () => {
    await withLog((log) => {
      log.attach(PLAIN);
      log.attach(WANTS_TURN_ENDED);
      for (let i = 1; i <= LOG_PAGE_SIZE + 10; i++) log.emit(agentMessageChunk(`t${i}`, "m1"));
      log.emitTurnEnded({ sessionId: SESSION_ID, stopReason: "end_turn", _meta: { hermes: { requestId: 1 } } });
      const last = LOG_PAGE_SIZE + 11;

      const first = log.page(PLAIN.connectionId, 5, Number.MAX_SAFE_INTEGER)!;
      expect(first.entries.map((e) => e.seq)).toEqual(Array.from({ length: LOG_PAGE_SIZE }, (_, i) => i + 6));
      expect(first).toMatchObject({ cursor: LOG_PAGE_SIZE + 5, more: true });
      const second = log.page(PLAIN.connectionId, first.cursor, Number.MAX_SAFE_INTEGER)!;
      // The turn_ended row is read (the cursor passes it) but not sent to a client that did not ask for it.
      expect(second.entries.map((e) => e.seq)).toEqual(Array.from({ length: 5 }, (_, i) => LOG_PAGE_SIZE + 6 + i));
      expect(second).toMatchObject({ cursor: last, more: false });
      expect(JSON.parse(second.entries[0]!.frame).params._meta.hermes.seq).toBe(LOG_PAGE_SIZE + 6);

      expect(log.page(WANTS_TURN_ENDED.connectionId, last - 1, last)!.entries.map((e) => JSON.parse(e.frame).method)).toEqual(["_hermes/turn_ended"]);
      // Bounded above: only what lies before the stream's own buffer.
      expect(log.page(PLAIN.connectionId, 0, 3)!.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    });
  });

  it("answers null for a connection the session does not have attached", async () => {
    await withLog((log) => {
      log.emit(agentMessageChunk("t1", "m1"));
      expect(log.page("conn-stranger", 0, Number.MAX_SAFE_INTEGER)).toBeNull();
      log.attach(PLAIN);
      log.detach(PLAIN.connectionId);
      expect(log.page(PLAIN.connectionId, 0, Number.MAX_SAFE_INTEGER)).toBeNull();
    });
  });

  it("gives a user_message_chunk stored as a reference to its prompt row back whole (the content is stored once)", async () => {
    await withLog((log, store, sql) => {
      log.attach(PLAIN);
      const text = "a prompt stored once ".repeat(50);
      store.enqueuePrompt(PLAIN.connectionId, 1, [{ type: "text", text }], Date.now());
      const prompt = store.promptsIn("queued")[0]!.prompt;
      const live = store.appendLog((seq) => JSON.stringify({ seq, update: userMessageChunk(prompt[0]!, "u1") }), userMessageChunk(prompt[0]!, "u1"));
      const stored = sql.exec<{ frame: string; prompt_id: number | null }>("SELECT frame, prompt_id FROM log WHERE seq = ?", live.seq).one();
      expect(stored.prompt_id).not.toBeNull();
      expect(stored.frame).not.toContain(text);
      expect(log.page(PLAIN.connectionId, live.seq - 1, live.seq)!.entries).toEqual([{ seq: live.seq, frame: live.frame }]);
    });
  });
});
