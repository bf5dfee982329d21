/**
 * What one long turn makes, counted against Cloudflare's per-invocation limits
 * (which `wrangler dev` does not enforce): the longest turn the service runs
 * (50 model calls, `DEFAULT_MAX_MODEL_CALLS`, each answered with a tool call),
 * once with a tool that needs no editor (`todo`) and once with one the editor
 * answers (`read_file` → `fs/read_text_file`). The numbers go in README ("Restarts", Plan).
 *
 * Limits (https://developers.cloudflare.com/workers/platform/limits/#subrequests,
 * https://developers.cloudflare.com/d1/platform/limits/): 50 subrequests per
 * invocation on Workers Free, 10,000 on Paid; D1 queries 50 (Free) / 1,000 (Paid).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_MODEL_CALLS } from "../../src/agent/turn-loop.js";
import { FEED_DELAY_MS } from "../../src/session/search-feed.js";
import { TOUCH_EVERY_MS } from "../../src/session/index-writer.js";
import { HEARTBEAT_MS } from "../../src/durable/session-object.js";
import { mockCalls, mockScript, sleep, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";
import { BudgetMeter, TENANT_TABLES, total, type Counts } from "./budget-meter.js";

const meter = new BudgetMeter();
beforeAll(() => meter.install());
afterAll(() => meter.uninstall());

/** Scripted steps: more than a turn may make, so the turn's own limit ends it. */
const STEPS = 60;

interface Budget {
  modelRequests: number;
  d1: number;
  tenantRpcs: number;
  deliveries: number;
  deliveredFrames: number;
  /** Everything the session object sent out during the turn. */
  subrequests: number;
  /** Calls into the session object during the turn (the prompt, editor answers): invocations. */
  sessionInvocations: number;
  /** Heartbeat alarms among them: one per `HEARTBEAT_MS` of a running turn, so under load a long turn may have one. */
  heartbeats: number;
  /** The most it sent between two of them. */
  maxBetweenCalls: number;
}

function report(name: string, counts: Counts): Budget {
  const budget: Budget = {
    modelRequests: counts.modelRequests,
    d1: counts.sessionD1,
    tenantRpcs: counts.tenantRpcs,
    deliveries: counts.deliveries,
    deliveredFrames: counts.deliveredFrames,
    subrequests: counts.subrequests,
    sessionInvocations: total(counts.sessionCalls),
    heartbeats: counts.sessionCalls.get("alarm") ?? 0,
    maxBetweenCalls: counts.maxBetweenCalls,
  };
  console.log(
    `${name}: ${JSON.stringify(budget)}\n  d1 by table ${JSON.stringify(Object.fromEntries(counts.d1))}` +
      `\n  tenant ${JSON.stringify(Object.fromEntries(counts.tenant))}\n  session calls ${JSON.stringify(Object.fromEntries(counts.sessionCalls))}` +
      (counts.otherFetches.length ? `\n  other fetches ${JSON.stringify(counts.otherFetches)}` : ""),
  );
  return budget;
}

/**
 * Runs one prompt and counts what it makes: from a quiet session (what `session/new` left
 * to do is done) until the writes a turn leaves for later (the index's `updatedAt`, the search feed) are out.
 */
async function longTurn(client: TestClient, sessionId: string, key: string): Promise<{ res: Frame; maxHeartbeats: number }> {
  await sleep(1_000);
  meter.reset();
  const started = Date.now();
  const res = await client.prompt(sessionId, `work through it [[mock:${key}]]`, 120_000).response;
  await sleep(Math.max(TOUCH_EVERY_MS, FEED_DELAY_MS) + 1_000);
  return { res, maxHeartbeats: Math.ceil((Date.now() - started) / HEARTBEAT_MS) };
}

describe("the longest turn, counted against the platform's per-invocation limits", () => {
  it("makes one model request per model call and a bounded number of subrequests with a tool that needs no editor", async () => {
    const key = uniqueKey("budget-todo");
    await mockScript(
      key,
      Array.from({ length: STEPS }, (_, i) => ({
        text: `Step ${i}.`,
        toolCalls: [{ id: `call_${i}`, name: "todo", arguments: { todos: [{ content: `step ${i}`, status: "in_progress" }] } }],
      })),
    );
    const client = await TestClient.ready();
    const sessionId = await client.newSession("/work/budget");
    const { res, maxHeartbeats } = await longTurn(client, sessionId, key);
    expect(res.result).toEqual({ stopReason: "max_turn_requests" });
    expect(await mockCalls(key)).toHaveLength(DEFAULT_MAX_MODEL_CALLS);

    const budget = report("todo turn", meter.counts);
    const steps = DEFAULT_MAX_MODEL_CALLS;
    expect(budget.modelRequests).toBe(steps);
    expect(meter.counts.otherFetches).toEqual([]);
    // D1 is not written per step: memory read at the start, the index flushed at the end, the search feed after.
    expect(budget.d1).toBeGreaterThan(0);
    expect(budget.d1).toBeLessThanOrEqual(4);
    // The tenant: the turn slot taken and given back (with the turn's usage), never per step.
    expect(budget.tenantRpcs).toBeLessThanOrEqual(3);
    // Deliveries are batched (never more than the frames): about one per step here, more when the
    // model streams slowly; unbatched they would be about five.
    expect(budget.deliveries).toBeLessThanOrEqual(budget.deliveredFrames);
    expect(budget.deliveries).toBeLessThanOrEqual(3 * steps + 10);
    // Nothing else calls the session while it works: the whole turn runs in the prompt RPC's invocation.
    expect(budget.heartbeats).toBeLessThanOrEqual(maxHeartbeats);
    expect(budget.sessionInvocations - budget.heartbeats).toBe(1);
    expect(budget.maxBetweenCalls).toBe(budget.subrequests);
    expect(budget.subrequests).toBe(budget.modelRequests + budget.d1 + budget.tenantRpcs + budget.deliveries);
    expect(budget.subrequests).toBeLessThanOrEqual(4 * steps + 20);
    client.close();
  }, 180_000);

  it("counts one incoming editor answer per step when the tool reads a file through the editor", async () => {
    const key = uniqueKey("budget-read");
    await mockScript(
      key,
      Array.from({ length: STEPS }, (_, i) => ({ toolCalls: [{ id: `read_${i}`, name: "read_file", arguments: { path: `/work/budget/f${i}.txt` } }] })),
    );
    const client = await TestClient.ready({}, { fs: { readTextFile: true } });
    let reads = 0;
    client.onRequest("fs/read_text_file", () => {
      reads++;
      return { content: "x" };
    });
    const sessionId = await client.newSession("/work/budget");
    const { res, maxHeartbeats } = await longTurn(client, sessionId, key);
    expect(res.result).toEqual({ stopReason: "max_turn_requests" });
    expect(reads).toBe(DEFAULT_MAX_MODEL_CALLS);

    const budget = report("read_file turn", meter.counts);
    const steps = DEFAULT_MAX_MODEL_CALLS;
    expect(budget.modelRequests).toBe(steps);
    expect(meter.counts.otherFetches).toEqual([]);
    expect(budget.d1).toBeLessThanOrEqual(4);
    expect(budget.tenantRpcs).toBeLessThanOrEqual(3);
    // Each editor answer is an RPC into the session object (an invocation of its own), and each
    // request to the editor goes out in a delivery of its own: about two per step.
    expect(meter.counts.sessionCalls.get("clientResponse")).toBe(steps);
    expect(budget.heartbeats).toBeLessThanOrEqual(maxHeartbeats);
    expect(budget.sessionInvocations - budget.heartbeats).toBe(steps + 1);
    expect(budget.deliveries).toBeLessThanOrEqual(budget.deliveredFrames);
    expect(budget.deliveries).toBeLessThanOrEqual(3 * steps + 10);
    expect(budget.subrequests).toBeLessThanOrEqual(4 * steps + 20);
    // Between two editor answers the session makes a handful: the next model request and its
    // deliveries (the last stretch adds the index, the search feed and the slot's release).
    expect(budget.maxBetweenCalls).toBeLessThanOrEqual(15);
    client.close();
  }, 180_000);
});

describe("a new session's D1 work", () => {
  it("reads the project memory in session/new's one D1 batch; the first prompt reads nothing from D1 and writes the index once", async () => {
    // A user's key (alpha/ada), not the tenant's admin: its access to a session is what a prompt checks.
    const client = await TestClient.ready({ token: "tok-alpha-ada" });
    meter.reset();
    const sessionId = await client.newSession("/work/budget-memory");
    // Anything session/new left running in the background has time to show in the counts.
    await sleep(500);
    expect(Object.fromEntries(meter.counts.d1)).toEqual({ "batch:sessions": 1 });

    const key = uniqueKey("budget-memory");
    await mockScript(key, [{ text: "hello" }]);
    meter.reset();
    const res = await client.prompt(sessionId, `hi [[mock:${key}]]`).response;
    expect(res.result).toEqual({ stopReason: "end_turn" });
    // Neither the memory (it came with session/new) nor the session's row for an access check:
    // the connection that made the session knows it owns it. (The index is written: the new title.)
    expect(Object.fromEntries(meter.counts.d1Reads)).toEqual({});
    // Then the index has the title (at the first output), and the turn's end goes with its messages to the
    // search index, one batch a second after it: no write of its own for the index, then or later.
    await sleep(TOUCH_EVERY_MS + 1_000);
    const sessionTables = [...meter.counts.d1].filter(([table]) => !TENANT_TABLES.has(table));
    expect(Object.fromEntries(sessionTables)).toEqual({ sessions: 1, "batch:search_entries": 1 });
    client.close();
  });
});
