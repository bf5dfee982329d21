/**
 * A session's side of its tenant's limits: the turn slot its prompt queue
 * holds while it works (one per session, however many prompts are queued),
 * the slots its sub-agents hold, renewals from the session's heartbeat, and
 * the usage each finished turn adds. The turn lease is kept in the session's
 * storage so a restarted object can give it back; if it cannot, it expires.
 *
 * Usage is added up in the session's record and goes to the tenant with the
 * slot's release, one call after the queue drains instead of one per turn; a
 * queued prompt sends it first, so the daily budget it is checked against
 * counts the turns before it.
 */
import type { SessionStore } from "../session/session-store.js";
import { acquireSubagent, acquireTurn, recordUsage, releaseLease, renewLease, retakeLease, type TenantEnv, type TenantLease } from "./tenant-slots.js";
import { addUsage, emptyUsage, type UsageDelta } from "./usage.js";

export class SessionSlots {
  #turn: TenantLease | null = null;

  constructor(
    private readonly env: TenantEnv,
    private readonly store: SessionStore,
  ) {}

  /**
   * Holds the session's turn slot before each turn. Asking again while it is
   * held returns the same lease (it never counts twice) and still checks the
   * daily token budget. @throws {RequestError} -32003 over a limit.
   */
  async holdTurn(): Promise<void> {
    if (this.store.record()?.pendingUsage) await this.sendUsage();
    const record = this.store.record()!;
    const held = this.#turn;
    this.#turn = await acquireTurn(this.env, record.tenant, record.sessionId);
    if (held?.id !== this.#turn.id) this.store.updateRecord({ tenantLease: this.#turn });
  }

  /** The queue is drained (or the session closes): the slot goes back. */
  async releaseTurn(): Promise<void> {
    const lease = this.#turn ?? this.store.record()?.tenantLease ?? null;
    this.#turn = null;
    if (!lease) return this.sendUsage();
    const usage = this.store.record()?.pendingUsage ?? undefined;
    if (this.store.record()) this.store.updateRecord({ tenantLease: null, pendingUsage: null });
    await releaseLease(this.env, lease, usage).catch((err) => {
      console.error("releasing a turn slot failed; it expires on its own", err);
      if (usage) this.#keep(usage);
    });
  }

  /** From the heartbeat: keeps the turn slot; an expired one is taken again if the tenant has room. */
  async renew(): Promise<void> {
    const lease = this.#turn;
    if (!lease || (await renewLease(this.env, lease).catch(() => true))) return;
    // The queue may have given the slot back while the renewal was on its way.
    if (this.#turn !== lease) return;
    this.#turn = null;
    await this.holdTurn().catch((err) => console.warn("a turn slot expired and could not be taken again", err));
  }

  /** A sub-agent's slot: waits while the tenant is at its limit; resolves to its release. */
  async holdSubagent(subagentId: string, signal: AbortSignal): Promise<() => Promise<void>> {
    let lease = await acquireSubagent(this.env, this.store.record()!.tenant, subagentId, { signal });
    // A lease the tenant no longer knows (it restarted) is taken again if there is room, so the sub-agent counts.
    const renew = async () => {
      if (!(await renewLease(this.env, lease))) lease = (await retakeLease(this.env, lease)) ?? lease;
    };
    const timer = setInterval(() => void renew().catch(() => undefined), RENEW_EVERY_MS);
    return async () => {
      clearInterval(timer);
      await releaseLease(this.env, lease).catch((err) => console.error("releasing a sub-agent slot failed; it expires on its own", err));
    };
  }

  /** Adds a finished turn's counts to the usage the next call to the tenant brings. */
  record(delta: UsageDelta): void {
    this.#keep(delta);
  }

  /** Sends the usage added up so far (a sub-agent's task holds no turn slot to release; a restarted object's leftovers). */
  async sendUsage(): Promise<void> {
    const record = this.store.record();
    const usage = record?.pendingUsage;
    if (!record || !usage) return;
    this.store.updateRecord({ pendingUsage: null });
    await recordUsage(this.env, record.tenant, usage).catch((err) => {
      console.error("recording usage failed; kept for the next call", { tenant: record.tenant }, err);
      this.#keep(usage);
    });
  }

  #keep(delta: UsageDelta): void {
    if (!this.store.record()) return;
    this.store.updateRecord({ pendingUsage: addUsage({ ...emptyUsage(), ...this.store.record()!.pendingUsage }, delta) });
  }
}

/** Sub-agent leases are renewed well inside their 90 s expiry. */
const RENEW_EVERY_MS = 30_000;
