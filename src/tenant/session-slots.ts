/**
 * A session's side of its tenant's limits: the turn slot its prompt queue
 * holds while it works (one per session, however many prompts are queued),
 * the slots its sub-agents hold, renewals from the session's heartbeat, and
 * the usage its turns add as they spend it. The turn lease is kept in the session's
 * storage so a restarted object can give it back; if it cannot, it expires.
 *
 * When the tenant allows it (`TurnGrant.keep`: it is at most half full), the
 * slot stays for `KEEP_TURN_SLOT_MS` after the queue drains, and a prompt in
 * that moment starts without a tenant call: the next prompt of a script or of
 * a quick conversation saves the two calls a turn slot costs (one round trip
 * to the tenant before its first token, deployed). It checks the day's token
 * budget itself, against what the tenant said was left minus what this
 * session spent since, and asks the tenant again once the grant is
 * `REUSE_GRANT_MS` old, so the budget and the usage are never further behind
 * than that.
 *
 * Usage is added up in the session's record and goes to the tenant with the
 * slot's release, one call after the queue drains instead of one per turn; a
 * queued prompt sends it first, so the daily budget it is checked against
 * counts the turns before it. What is sent goes as a batch with an id: if the
 * reply is lost, the batch is sent again with the same id and counted once.
 * A call that fails leaves the usage in the record and asks the object to try
 * again later (`retryLater`), so a session that is never prompted again does
 * not keep it for good.
 *
 * A confirmed batch leaves the record with the record's next write (the next
 * turn's, or the idle alarm's `tidy`), not in a write of its own: that would
 * be one more storage commit per prompt. Until then this instance knows it is
 * counted; a restarted one sends it again under its id, and the tenant object
 * counts it once.
 */
import type { SessionRecord } from "../session/session-record.js";
import type { SessionStore } from "../session/session-store.js";
import { acquireSubagent, acquireTurn, recordUsage, releaseLease, renewLease, retakeLease, TenantStubs, type TenantEnv, type TenantLease } from "./tenant-slots.js";
import { addUsage, emptyUsage, usageBatch, type UsageBatch, type UsageDelta } from "./usage.js";

/** How long a drained queue keeps its turn slot, when the tenant allows it, for the session's next prompt. */
export const KEEP_TURN_SLOT_MS = 1_000;
/** How long after the tenant granted the turn slot a prompt may use it again without asking (see the module comment). */
export const REUSE_GRANT_MS = 10_000;

export class SessionSlots {
  #turn: TenantLease | null = null;
  /** What the tenant said with `#turn`, and the tokens this session spent since (memory only: a restarted object asks again). */
  #grant: { at: number; keep: boolean; tokensLeft: number | null; spent: number } | null = null;
  /** Gives back a slot kept after the queue drained (see `queueDrained`). */
  #keepTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the queue last drained keeping the slot. */
  #drainedAt = 0;
  /** The queue wants the turn slot (from `holdTurn` until `releaseTurn`); a renewal's re-take alone does not. */
  #wanted = false;
  /** The usage send in flight (see `sendUsage`). */
  #sending: Promise<void> | null = null;
  /** The id of the record's `usageBatch` once the tenant has counted it (it is cleared with the next write). */
  #confirmed: string | null = null;

  /** The tenant object, through one stub kept for this instance's calls. */
  private readonly env: TenantEnv;

  /** @param retryLater asks for `sendUsage` to be called again later (the object's alarm). */
  constructor(
    env: TenantEnv,
    private readonly store: SessionStore,
    private readonly retryLater: () => void = () => undefined,
  ) {
    this.env = { TENANT: env.TENANT, stubs: env.stubs ?? new TenantStubs(env.TENANT) };
  }

  /**
   * Holds the session's turn slot before each turn. Asking again while it is
   * held returns the same lease (it never counts twice) and still checks the
   * daily token budget. @throws {RequestError} -32003 over a limit.
   */
  async holdTurn(): Promise<void> {
    // A keep timer still pending finds the slot wanted and lets it be (see `#keepEnds`).
    this.#wanted = true;
    if (this.#reusable()) return;
    await this.#takeTurn();
  }

  /** The slot held may start another turn without asking the tenant: young enough, and the budget not spent by this session's count. */
  #reusable(): boolean {
    const grant = this.#grant;
    if (!this.#turn || !grant || Date.now() - grant.at >= REUSE_GRANT_MS) return false;
    return grant.tokensLeft === null || grant.spent < grant.tokensLeft;
  }

  async #takeTurn(): Promise<void> {
    const record = this.store.record();
    if (!record) throw new Error("the session was deleted");
    if (record.pendingUsage || this.#unsent(record)) await this.sendUsage();
    const held = this.#turn;
    const { lease, keep, tokensLeft } = await acquireTurn(this.env, record.tenant, record.sessionId);
    if (!this.store.record()) {
      // Deleted while the slot was on its way: nothing else would give it back.
      await releaseLease(this.env, lease).catch((err) => console.error("releasing a deleted session's turn slot failed; it expires on its own", err));
      throw new Error("the session was deleted while its turn slot was being taken");
    }
    this.#turn = lease;
    this.#grant = { at: Date.now(), keep, tokensLeft, spent: 0 };
    if (held?.id !== lease.id) this.#update({ tenantLease: lease });
  }

  /**
   * The queue is drained: the slot goes back, or, when the tenant allowed it,
   * once `KEEP_TURN_SLOT_MS` pass without a prompt to use it.
   */
  queueDrained(): Promise<void> {
    this.#wanted = false;
    if (!this.#turn || !this.#grant?.keep) return this.releaseTurn();
    this.#drainedAt = Date.now();
    this.#keepTimer ??= setTimeout(() => this.#keepEnds(), KEEP_TURN_SLOT_MS);
    return Promise.resolve();
  }

  /**
   * The keep timer fired. It is not moved at every prompt and drain (two timer
   * calls on every prompt's way, in a quick conversation): it looks at the last
   * drain when it fires and waits the rest of that drain's time if needed.
   */
  #keepEnds(): void {
    this.#keepTimer = undefined;
    if (this.#wanted) return; // a turn runs in the slot; its queue's drain keeps it again
    const left = this.#drainedAt + KEEP_TURN_SLOT_MS - Date.now();
    if (left > 0) this.#keepTimer = setTimeout(() => this.#keepEnds(), left);
    else void this.releaseTurn();
  }

  /** The slot goes back now (the session closes, restarts, or keeps it no longer). */
  async releaseTurn(): Promise<void> {
    this.#wanted = false;
    clearTimeout(this.#keepTimer);
    this.#keepTimer = undefined;
    const lease = this.#turn ?? this.store.record()?.tenantLease ?? null;
    this.#turn = null;
    this.#grant = null;
    if (!lease) return this.sendUsage();
    // One write: the lease leaves the record with the usage the release carries.
    const batch = this.#nextBatch({ tenantLease: null });
    try {
      await releaseLease(this.env, lease, batch);
    } catch (err) {
      console.error("releasing a turn slot failed; it expires on its own, and its usage is sent again later", err);
      if (batch) this.retryLater();
      return;
    }
    if (batch) this.#acknowledged(batch);
    // What a failed earlier send left, when the release carried that instead.
    await this.sendUsage();
  }

  /** From the heartbeat: keeps the turn slot; an expired one is taken again if the tenant has room. */
  async renew(): Promise<void> {
    const lease = this.#turn;
    if (!lease || (await renewLease(this.env, lease).catch(() => true))) return;
    // The queue may have given the slot back while the renewal was on its way.
    if (this.#turn !== lease) return;
    this.#turn = null;
    await this.#takeTurn().catch((err) => console.warn("a turn slot expired and could not be taken again", err));
    // The queue drained while the slot was being taken again: it goes back now, not when it expires.
    if (!this.#wanted && this.#turn) await this.releaseTurn();
  }

  /** A sub-agent's slot: waits while the tenant is at its limit (`onWait` hears once that it waits, and the limit); resolves to its release. */
  async holdSubagent(subagentId: string, signal: AbortSignal, onWait?: (max: number) => void): Promise<() => Promise<void>> {
    let lease = await acquireSubagent(this.env, this.store.record()!.tenant, subagentId, { signal, ...(onWait ? { onWait: (r) => onWait(r.max) } : {}) });
    let ended = false;
    const release = (held: TenantLease) =>
      releaseLease(this.env, held).catch((err) => console.error("releasing a sub-agent slot failed; it expires on its own", err));
    // A lease the tenant no longer knows (it restarted) is taken again if there is room, so the sub-agent counts.
    const renew = async () => {
      if (await renewLease(this.env, lease)) return;
      const retaken = await retakeLease(this.env, lease);
      if (!retaken) return;
      // The sub-agent ended while the slot was being taken again: it goes back now, not when it expires.
      if (ended) await release(retaken);
      else lease = retaken;
    };
    const timer = setInterval(() => void renew().catch(() => undefined), RENEW_EVERY_MS);
    return async () => {
      ended = true;
      clearInterval(timer);
      await release(lease);
    };
  }

  /** Adds counts to the usage the next call to the tenant brings, in one write of the record with `alongside`. */
  record(delta: UsageDelta, alongside: Partial<SessionRecord> = {}): void {
    const record = this.store.record();
    if (!record) return;
    this.#update({ ...alongside, pendingUsage: addUsage({ ...emptyUsage(), ...record.pendingUsage }, delta) });
    if (this.#grant) this.#grant.spent += (delta.inputTokens ?? 0) + (delta.outputTokens ?? 0);
  }

  /**
   * Sends the usage added up so far (a sub-agent's task holds no turn slot to
   * release; a restarted object's leftovers). A second caller joins the send in
   * flight, which goes on until nothing is left.
   */
  sendUsage(): Promise<void> {
    this.#sending ??= this.#send().finally(() => (this.#sending = null));
    return this.#sending;
  }

  async #send(): Promise<void> {
    for (let batch = this.#nextBatch(); batch; batch = this.#nextBatch()) {
      const tenant = this.store.record()!.tenant;
      try {
        await recordUsage(this.env, tenant, batch);
      } catch (err) {
        console.error("recording usage failed; sent again later under the same id", { tenant }, err);
        this.retryLater();
        return;
      }
      this.#acknowledged(batch);
    }
  }

  /**
   * Sends what is left, then clears a confirmed batch from the record (from
   * the idle alarm: the one write that would otherwise wait for the next turn).
   */
  async tidy(): Promise<void> {
    await this.sendUsage();
    const record = this.store.record();
    if (record?.usageBatch && !this.#unsent(record)) this.#update({});
  }

  /**
   * The batch to send: one sent before and not confirmed, or else the pending
   * usage under a new id. `alongside` is written in the same write (there is one
   * only when there is something to write).
   */
  #nextBatch(alongside: Partial<SessionRecord> = {}): UsageBatch | undefined {
    const record = this.store.record();
    if (!record) return undefined;
    const unsent = this.#unsent(record);
    if (unsent || !record.pendingUsage) {
      if (Object.keys(alongside).length > 0) this.#update(alongside);
      return unsent ?? undefined;
    }
    const batch = usageBatch(record.pendingUsage, Date.now(), record.owner ?? null);
    this.store.updateRecord({ ...alongside, pendingUsage: null, usageBatch: batch });
    return batch;
  }

  /** The record's batch unless the tenant has counted it already. */
  #unsent(record: SessionRecord): UsageBatch | null {
    const batch = record.usageBatch ?? null;
    return batch && batch.id !== this.#confirmed ? batch : null;
  }

  /** Counted: this object sends it no more, and the record's next write drops it (see the module comment). */
  #acknowledged(batch: UsageBatch): void {
    if (this.store.record()?.usageBatch?.id === batch.id) this.#confirmed = batch.id;
  }

  /** A write of the record from here, which also drops a confirmed batch. */
  #update(patch: Partial<SessionRecord>): void {
    const record = this.store.record();
    if (!record) return;
    const drop = record.usageBatch && !this.#unsent(record) ? { usageBatch: null } : {};
    this.store.updateRecord({ ...drop, ...patch });
  }
}

/** Sub-agent leases are renewed well inside their 90 s expiry. */
const RENEW_EVERY_MS = 30_000;
