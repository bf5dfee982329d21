/**
 * A replay (`session/load`, `session/resume` with afterSeq) reads the session's
 * log a page at a time, only as the connection's outbox gets to it, so a log of
 * any length costs about one page and one batch of memory. These run the real
 * UpdateLog on a session object's own SQLite, with a slow connection, and count
 * the rows read from storage against the frames handed over.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { agentMessageChunk } from "../../src/acp/updates.js";
import type { SessionRecord } from "../../src/session/session-record.js";
import { LOG_PAGE_SIZE, SessionStore } from "../../src/session/session-store.js";
import { MAX_BATCH_FRAMES, UpdateLog } from "../../src/session/update-log.js";

const SESSION_ID = "s-replay";
/** A client that did not ask for `_hermes/turn_ended`. */
const CONN = { connectionId: "conn-replay", tenant: "alpha", clientCapabilities: {} };
const UPDATES = 3_000;
const TURN_ENDED_EVERY = 100;

interface Frame {
  id?: number;
  method?: string;
  params?: { _meta?: { hermes?: { seq?: number } } };
}

/**
 * A session whose log holds UPDATES updates (with a turn_ended after every
 * TURN_ENDED_EVERY), an UpdateLog over it whose connection takes a few ms
 * per batch, and a count of the log rows read so far.
 */
function setUp(store: SessionStore) {
  store.migrate();
  store.saveRecord({ sessionId: SESSION_ID, tenant: "alpha", interruptedPrompt: null } as SessionRecord);
  const delivered: string[] = [];
  /** Per delivery: log rows read from storage but not yet handed over, this batch included. */
  const held: number[] = [];
  const reads = { rows: 0 };
  /** Runs while each batch is in flight, before the connection answers. */
  let onBatch: (n: number) => void = () => undefined;
  let answer = true;
  const tick = () => new Promise((r) => setTimeout(r, 1));
  const log = new UpdateLog(store, () => async (batch) => {
    held.push(reads.rows - replayedSoFar());
    delivered.push(...batch);
    const n = held.length;
    await tick();
    onBatch(n);
    await tick();
    return answer;
  });
  const filler = "x".repeat(2_000); // a diff's worth of text per row
  for (let i = 1; i <= UPDATES; i++) {
    log.emit(agentMessageChunk(`t${i} ${filler}`, "m1"));
    if (i % TURN_ENDED_EVERY === 0) log.emitTurnEnded({ sessionId: SESSION_ID, stopReason: "end_turn", _meta: { hermes: { requestId: i } } });
  }
  const rows = store.lastSeq();
  const logPages = store.logPages.bind(store);
  vi.spyOn(store, "logPages").mockImplementation(function* (afterSeq, untilSeq, pageSize) {
    for (const page of logPages(afterSeq, untilSeq, pageSize)) {
      reads.rows += page.length;
      yield page;
    }
  });
  /** Rows a replay has handed over: the logged frames delivered, turn_ended ones counted though left out. */
  const replayedSoFar = () => {
    const seqs = delivered.map((f) => seqOf(JSON.parse(f) as Frame)).filter((s) => s !== undefined);
    return seqs.length === 0 ? 0 : Math.min(seqs[seqs.length - 1]!, rows);
  };
  log.attach(CONN);
  return {
    log,
    rows,
    reads,
    held,
    frames: () => delivered.map((f) => JSON.parse(f) as Frame),
    onBatch: (f: (n: number) => void) => (onBatch = f),
    hangUp: () => (answer = false),
  };
}

function seqOf(frame: Frame): number | undefined {
  return frame.method === "session/update" ? frame.params?._meta?.hermes?.seq : undefined;
}

const updateSeqs = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i).filter((s) => s % (TURN_ENDED_EVERY + 1) !== 0);

function inFreshObject(run: (store: SessionStore) => Promise<void>): Promise<void> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`replay-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, ctx) => run(new SessionStore(ctx.storage.sql)));
}

describe("a replay of a long log", () => {
  it("holds at most one read page and one batch at a time, and sends every update once, in order, before the response", async () => {
    await inFreshObject(async (store) => {
      const { log, rows, reads, held, frames } = setUp(store);
      expect(rows).toBe(UPDATES + UPDATES / TURN_ENDED_EVERY);
      log.replay(CONN.connectionId, 0);
      log.respond(CONN.connectionId, 7, { result: { loaded: true } });
      expect(reads.rows).toBeLessThanOrEqual(MAX_BATCH_FRAMES + LOG_PAGE_SIZE); // not the whole log at once
      await log.drained(CONN.connectionId);
      expect(reads.rows).toBe(rows);
      expect(held.length).toBeGreaterThan(2);
      expect(Math.max(...held)).toBeLessThanOrEqual(MAX_BATCH_FRAMES + LOG_PAGE_SIZE);
      const sent = frames();
      // turn_ended frames are left out for a client that did not ask for them.
      expect(sent.filter((f) => f.method === "_hermes/turn_ended")).toEqual([]);
      expect(sent.slice(0, -1).map(seqOf)).toEqual(updateSeqs(rows));
      expect(sent.at(-1)).toMatchObject({ id: 7, result: { loaded: true } });
    });
  });

  it("replays from afterSeq to the seq logged when it started; updates logged while it pages come once, live, after the response", async () => {
    await inFreshObject(async (store) => {
      const { log, rows, reads, frames, onBatch } = setUp(store);
      const live: number[] = [];
      // A running turn goes on while the replay pages: an update at each of its first batches.
      onBatch((n) => {
        if (n <= 2) live.push(log.emit(agentMessageChunk(`live ${n}`, "m2")));
      });
      const afterSeq = 1_234;
      log.replay(CONN.connectionId, afterSeq);
      log.respond(CONN.connectionId, 8, { result: {} });
      await log.drained(CONN.connectionId);
      expect(live).toEqual([rows + 1, rows + 2]);
      expect(reads.rows).toBe(rows - afterSeq); // the live rows are not read by the replay
      const sent = frames();
      const response = sent.findIndex((f) => f.id === 8);
      expect(sent.slice(0, response).map(seqOf)).toEqual(updateSeqs(rows - afterSeq, afterSeq + 1));
      expect(sent.slice(response + 1).map(seqOf)).toEqual(live);
    });
  });

  it("reads no more of the log once its connection is let go of mid-replay", async () => {
    await inFreshObject(async (store) => {
      const { log, rows, reads, onBatch } = setUp(store);
      let readAtDetach = 0;
      onBatch((n) => {
        if (n !== 1) return;
        log.detach(CONN.connectionId); // the socket closed
        readAtDetach = reads.rows;
      });
      log.replay(CONN.connectionId, 0);
      await log.drained(CONN.connectionId);
      expect(readAtDetach).toBeGreaterThan(0);
      expect(reads.rows).toBe(readAtDetach);
      expect(reads.rows).toBeLessThan(rows);
    });
  });

  it("reads no more of the log once a delivery finds the connection gone", async () => {
    await inFreshObject(async (store) => {
      const { log, rows, reads, held, hangUp } = setUp(store);
      hangUp();
      log.replay(CONN.connectionId, 0);
      const readBeforeAnswer = reads.rows;
      await log.drained(CONN.connectionId);
      expect(held).toHaveLength(1);
      expect(reads.rows).toBe(readBeforeAnswer);
      expect(reads.rows).toBeLessThan(rows);
      expect(log.isAttached(CONN.connectionId)).toBe(false);
    });
  });
});
