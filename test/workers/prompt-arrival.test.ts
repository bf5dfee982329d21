/**
 * A prompt that finds its session idle waits for the tenant's turn slot
 * before it is stored. What another connection does meanwhile must still
 * count: a cancel answers it `cancelled` (it never runs), a close or delete
 * refuses it, and a slot taken for a prompt that will not run goes back.
 * The slot is a promise the test settles, so each case lands inside the wait.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SessionIndex } from "../../src/db/session-index.js";
import { IndexWriter } from "../../src/session/index-writer.js";
import { PromptRunner } from "../../src/session/prompt-runner.js";
import type { TurnSetup } from "../../src/session/turn-setup.js";
import type { SessionRecord } from "../../src/session/session-record.js";
import { SessionStore } from "../../src/session/session-store.js";
import { TurnSteps } from "../../src/session/turn-steps.js";
import { UpdateLog } from "../../src/session/update-log.js";
import type { SessionSlots } from "../../src/tenant/session-slots.js";

class NoIndex extends SessionIndex {
  override async update(): Promise<void> {}
}

const CONN = { connectionId: "conn-a", tenant: "alpha", clientCapabilities: { _meta: { hermes: { turnEnded: true } } } };

function setUp(store: SessionStore, sql: SqlStorage) {
  store.migrate();
  store.saveRecord({ sessionId: "s-arrival", tenant: "alpha", interruptedPrompt: null } as SessionRecord);
  const frames: string[] = [];
  const log = new UpdateLog(store, () => async (batch) => {
    frames.push(...batch);
    return true;
  });
  log.attach(CONN);
  let grant!: () => void;
  let granted = false;
  const calls: string[] = [];
  const slots = {
    // The first slot waits for the test; once granted, asking again is answered at once.
    holdTurn: () => {
      calls.push("hold");
      return granted ? Promise.resolve() : new Promise<void>((resolve) => (grant = () => ((granted = true), resolve())));
    },
    releaseTurn: async () => void calls.push("release"),
    queueDrained: async () => void calls.push("drained"),
    record: () => undefined,
    renew: async () => undefined,
  } as unknown as SessionSlots;
  const setup = {
    log,
    newId: () => crypto.randomUUID(),
    steps: new TurnSteps(sql),
    index: new IndexWriter(store, new NoIndex(env.DB)),
    slots,
    keepAlive: () => undefined,
    turnEnded: () => undefined,
  } as unknown as TurnSetup;
  return { runner: new PromptRunner(setup), frames, calls, grant: () => grant() };
}

const parsed = (frames: string[]) => frames.map((f) => JSON.parse(f) as { id?: unknown; result?: { stopReason?: string }; method?: string; params?: { stopReason?: string } });

function inFreshObject(run: (store: SessionStore, sql: SqlStorage) => Promise<void>): Promise<void> {
  const stub = env.SESSION.get(env.SESSION.idFromName(`arrival-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_instance, ctx) => run(new SessionStore(ctx.storage.sql), ctx.storage.sql));
}

describe("a prompt waiting for its turn slot", () => {
  it("counts as a running turn for a reconnecting client, which must not send it again", async () => {
    await inFreshObject(async (store, sql) => {
      const { runner, grant } = setUp(store, sql);
      expect(runner.turnState().state).toBe("idle");
      const arriving = runner.enqueue(CONN, 7, [{ type: "text", text: "hello" }]);
      expect(runner.turnState().state).toBe("running");
      runner.cancelAll();
      grant();
      await arriving;
      await runner.idle();
      expect(runner.turnState().state).toBe("idle");
    });
  });

  it("is answered cancelled, never run, when a session/cancel lands meanwhile, and gives the slot back", async () => {
    await inFreshObject(async (store, sql) => {
      const { runner, frames, calls, grant } = setUp(store, sql);
      const arriving = runner.enqueue(CONN, 7, [{ type: "text", text: "hello" }]);
      runner.cancelAll();
      grant();
      await arriving;
      await runner.idle();
      expect(store.promptsIn("queued")).toEqual([]);
      expect(store.history()).toEqual([]); // the model never saw it
      const out = parsed(frames);
      expect(out.find((f) => f.id === 7)).toMatchObject({ result: { stopReason: "cancelled" } });
      expect(out.find((f) => f.method === "_hermes/turn_ended")).toMatchObject({ params: { stopReason: "cancelled" } });
      expect(calls).toEqual(["hold", "release"]);
    });
  });

  it("is cancelled by a $/cancel_request for its own id, and only that one", async () => {
    await inFreshObject(async (store, sql) => {
      const { runner, frames, grant } = setUp(store, sql);
      const arriving = runner.enqueue(CONN, 8, [{ type: "text", text: "hello" }]);
      runner.cancelRequest("conn-a", 9); // another id: no effect
      runner.cancelRequest("conn-a", 8);
      grant();
      await arriving;
      expect(parsed(frames).find((f) => f.id === 8)).toMatchObject({ result: { stopReason: "cancelled" } });
    });
  });

  it("leaves the slot to another prompt waiting for it when it is cancelled (no release and no second hold in between)", async () => {
    await inFreshObject(async (store, sql) => {
      const { runner, frames, calls, grant } = setUp(store, sql);
      const first = runner.enqueue(CONN, 11, [{ type: "text", text: "cancel me" }]);
      const second = runner.enqueue(CONN, 12, [{ type: "text", text: "run me" }]);
      runner.cancelRequest("conn-a", 11);
      grant();
      await Promise.all([first, second]);
      await runner.idle();
      const out = parsed(frames);
      expect(out.find((f) => f.id === 11)).toMatchObject({ result: { stopReason: "cancelled" } });
      expect(out.some((f) => f.id === 12)).toBe(true); // it ran (these ports have no model, so it ends in an error) and was answered
      expect(store.promptsIn("queued")).toEqual([]);
      // The second prompt ran in the slot taken for both; the queue drained once, after that turn.
      expect(calls).toEqual(["hold", "drained"]);
    });
  });

  it("is stored as running when its turn starts at once (one write of its row), and one that arrives with it as queued", async () => {
    await inFreshObject(async (_store, sql) => {
      const writes: string[] = [];
      const traced = Object.create(sql) as SqlStorage;
      traced.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
        if (/^(INSERT INTO|UPDATE) prompts /.test(query)) {
          const state = bindings.find((b) => b === "queued" || b === "running");
          writes.push(`${query.startsWith("INSERT") ? "insert" : "update"}${state ? ` ${state}` : ""}`);
        }
        return sql.exec(query, ...bindings);
      }) as SqlStorage["exec"];
      const store = new SessionStore(traced);
      const { runner, frames, grant } = setUp(store, sql);
      const first = runner.enqueue(CONN, 21, [{ type: "text", text: "first" }]);
      const second = runner.enqueue(CONN, 22, [{ type: "text", text: "second" }]);
      grant();
      await Promise.all([first, second]);
      await runner.idle();
      // The first: its row, then its end. The second: its row, then its start and its end.
      expect(writes).toEqual(["insert running", "insert queued", "update", "update running", "update"]);
      // Both ran, in order, and were answered (these ports have no model, so each ends in an error).
      expect(parsed(frames).filter((f) => f.id === 21 || f.id === 22).map((f) => f.id)).toEqual([21, 22]);
      expect(store.promptsIn("queued")).toEqual([]);
      expect(store.promptsIn("running")).toEqual([]);
    });
  });

  it("is refused, and not stored, when the session was closed or deleted meanwhile", async () => {
    await inFreshObject(async (store, sql) => {
      const { runner, calls, grant } = setUp(store, sql);
      let closed = false;
      const arriving = runner.enqueue(CONN, 10, [{ type: "text", text: "hello" }], () => {
        if (closed) throw new Error("Resource not found");
      });
      closed = true;
      grant();
      await expect(arriving).rejects.toThrow("Resource not found");
      expect(store.recentPrompts(5)).toEqual([]);
      expect(store.promptsIn("queued")).toEqual([]);
      expect(calls).toEqual(["hold", "release"]);
    });
  });
});

describe("the update log after a restart", () => {
  it("keeps the most recently attached connection first, as before the restart", async () => {
    await inFreshObject(async (store, sql) => {
      store.migrate();
      store.saveRecord({ sessionId: "s-order", tenant: "alpha", interruptedPrompt: null } as SessionRecord);
      let now = 1_000;
      const deliver = () => async () => true;
      const before = new UpdateLog(store, deliver, () => now++);
      for (const connectionId of ["conn-old", "conn-mid", "conn-new"]) before.attach({ ...CONN, connectionId });
      expect(before.attached().map(([id]) => id)).toEqual(["conn-new", "conn-mid", "conn-old"]);
      const after = new UpdateLog(store, deliver); // a new instance reads the attachments from storage
      expect(after.attached().map(([id]) => id)).toEqual(["conn-new", "conn-mid", "conn-old"]);
    });
  });

  it("waits for an editor to come back when the restored attachments' sockets are gone, and not for a viewer", async () => {
    await inFreshObject(async (store) => {
      store.migrate();
      store.saveRecord({ sessionId: "s-return", tenant: "alpha", interruptedPrompt: null } as SessionRecord);
      new UpdateLog(store, () => async () => true).attach({ ...CONN, connectionId: "conn-cut" });
      // After a full restart the connection object has no socket: its delivery says so.
      const after = new UpdateLog(store, (connectionId) => async () => connectionId !== "conn-cut");
      after.emit({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "↻ restarted" } });
      let reached: boolean | undefined;
      const waiting = after.editorReachable(60_000).then((r) => (reached = r));
      await new Promise((r) => setTimeout(r, 20));
      expect(after.isAttached("conn-cut")).toBe(false);
      after.attach({ ...CONN, connectionId: "conn-viewer", role: "viewer", user: "vic" });
      await new Promise((r) => setTimeout(r, 20));
      expect(reached).toBeUndefined();
      after.attach({ ...CONN, connectionId: "conn-back" });
      await waiting;
      expect(reached).toBe(true);
    });
  });

  it("goes on at once when a restored attachment's socket is live (an eviction), and gives up after its bound when none comes", async () => {
    await inFreshObject(async (store) => {
      store.migrate();
      store.saveRecord({ sessionId: "s-live", tenant: "alpha", interruptedPrompt: null } as SessionRecord);
      new UpdateLog(store, () => async () => true).attach(CONN);
      const evicted = new UpdateLog(store, () => async () => true);
      evicted.emit({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "↻ restarted" } });
      expect(await evicted.editorReachable(60_000)).toBe(true);
      const restarted = new UpdateLog(store, () => async () => false);
      restarted.emit({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "↻ restarted" } });
      expect(await restarted.editorReachable(50)).toBe(false);
    });
  });
});

describe("a turn's steps", () => {
  it("keep the ids of each tool call's editor requests across a restart, until the step is done", async () => {
    await inFreshObject(async (_store, sql) => {
      const before = new TurnSteps(sql);
      before.begin(1, 1_000, { turns: 1 });
      before.phase("call-1", "asking");
      before.asked("call-1", "session/request_permission#0", "hermes:s:7001");
      const after = new TurnSteps(sql); // a restarted object reads them back
      expect(after.requestId("call-1", "session/request_permission#0")).toBe("hermes:s:7001");
      expect(after.requestId("call-1", "fs/write_text_file#0")).toBeUndefined();
      after.resumed(1);
      expect(new TurnSteps(sql).requestId("call-1", "session/request_permission#0")).toBe("hermes:s:7001");
      after.stepDone();
      expect(new TurnSteps(sql).requestId("call-1", "session/request_permission#0")).toBeUndefined();
      expect(new TurnSteps(sql).running()).toMatchObject({ promptId: 1, resumes: 1, phases: {} });
      // The turn counts when it ends, in whichever object ends it, and once.
      expect(new TurnSteps(sql).end()).toEqual({ turns: 1 });
      expect(new TurnSteps(sql).end()).toBeUndefined();
    });
  });

  it("count nothing at the end of a turn stored before turns were counted at their end (it counted as it began)", async () => {
    await inFreshObject(async (_store, sql) => {
      new TurnSteps(sql);
      sql.exec(`INSERT INTO turn_steps (id, body) VALUES (1, ?)`, JSON.stringify({ promptId: 3, startedAt: 1_000, resumes: 0, phases: {} }));
      const steps = new TurnSteps(sql);
      expect(steps.running()).toMatchObject({ promptId: 3 });
      expect(steps.end()).toBeUndefined();
      expect(steps.running()).toBeNull();
    });
  });
});
