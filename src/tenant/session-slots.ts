/**
 * A session's side of its tenant's limits: the turn slot its prompt queue
 * holds while it works (one per session, however many prompts are queued),
 * the slots its sub-agents hold, renewals from the session's heartbeat, and
 * the usage its turns add as they spend it. The turn lease is kept in the session's
 * storage so a restarted object can give it back; if it cannot, it expires.
 *
 * Usage is added up in the session's record and goes to the tenant with the
 * slot's release, one call after the queue drains instead of one per turn; a
 * queued prompt sends it first, so the daily budget it is checked against
 * counts the turns before it. What is sent goes as a batch with an id: if the
 * reply is lost, the batch is sent again with the same id and counted once.
 * A call that fails leaves the usage in the record and asks the object to try
 * again later (`retryLater`), so a session that is never prompted again does
 * not keep it for good.
 */
import type { SessionStore } from "../session/session-store.js";
import { acquireSubagent, acquireTurn, recordUsage, releaseLease, renewLease, retakeLease, type TenantEnv, type TenantLease } from "./tenant-slots.js";
import { addUsage, emptyUsage, usageBatch, type UsageBatch, type UsageDelta } from "./usage.js";

export class SessionSlots {
  #turn: TenantLease | null = null;
  /** The queue wants the turn slot (from `holdTurn` until `releaseTurn`); a renewal's re-take alone does not. */
  #wanted = false;
  /** The usage send in flight (see `sendUsage`). */
  #sending: Promise<void> | null = null;

  /** @param retryLater asks for `sendUsage` to be called again later (the object's alarm). */
  constructor(
    private readonly env: TenantEnv,
    private readonly store: SessionStore,
    private readonly retryLater: () => void = () => undefined,
  ) {}

  /**
   * Holds the session's turn slot before each turn. Asking again while it is
   * held returns the same lease (it never counts twice) and still checks the
   * daily token budget. @throws {RequestError} -32003 over a limit.
   */
  async holdTurn(): Promise<void> {
    this.#wanted = true;
    await this.#takeTurn();
  }

  async #takeTurn(): Promise<void> {
    if (this.store.record()?.pendingUsage || this.store.record()?.usageBatch) await this.sendUsage();
    const record = this.store.record();
    if (!record) throw new Error("the session was deleted");
    const held = this.#turn;
    const lease = await acquireTurn(this.env, record.tenant, record.sessionId);
    if (!this.store.record()) {
      // Deleted while the slot was on its way: nothing else would give it back.
      await releaseLease(this.env, lease).catch((err) => console.error("releasing a deleted session's turn slot failed; it expires on its own", err));
      throw new Error("the session was deleted while its turn slot was being taken");
    }
    this.#turn = lease;
    if (held?.id !== lease.id) this.store.updateRecord({ tenantLease: lease });
  }

  /** The queue is drained (or the session closes): the slot goes back. */
  async releaseTurn(): Promise<void> {
    this.#wanted = false;
    const lease = this.#turn ?? this.store.record()?.tenantLease ?? null;
    this.#turn = null;
    if (!lease) return this.sendUsage();
    const batch = this.#nextBatch();
    if (this.store.record()) this.store.updateRecord({ tenantLease: null });
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

  /** Adds a finished turn's counts to the usage the next call to the tenant brings. */
  record(delta: UsageDelta): void {
    this.#keep(delta);
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

  /** The batch to send: one sent before and not acknowledged, or else the pending usage under a new id. */
  #nextBatch(): UsageBatch | undefined {
    const record = this.store.record();
    if (!record) return undefined;
    if (record.usageBatch) return record.usageBatch;
    if (!record.pendingUsage) return undefined;
    const batch = usageBatch(record.pendingUsage, Date.now(), record.owner ?? null);
    this.store.updateRecord({ pendingUsage: null, usageBatch: batch });
    return batch;
  }

  /** Counted: the batch leaves the record, so neither this object nor a restarted one sends it again. */
  #acknowledged(batch: UsageBatch): void {
    if (this.store.record()?.usageBatch?.id === batch.id) this.store.updateRecord({ usageBatch: null });
  }

  #keep(delta: UsageDelta): void {
    if (!this.store.record()) return;
    this.store.updateRecord({ pendingUsage: addUsage({ ...emptyUsage(), ...this.store.record()!.pendingUsage }, delta) });
  }
}

/** Sub-agent leases are renewed well inside their 90 s expiry. */
const RENEW_EVERY_MS = 30_000;
