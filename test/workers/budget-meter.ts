/**
 * Counts what the service's objects make, at boundaries inside this isolate (the
 * workers tests run the Worker, its Durable Objects and the test in one isolate):
 *
 * - model requests: `globalThis.fetch` (the `openai` client takes the global
 *   `fetch` when a session object builds its provider, so the spy must be on first);
 * - D1 round trips: `D1PreparedStatement.prototype.{first,run,all,raw}` and
 *   `D1Database.prototype.{batch,exec}` (one call = one request to D1; a batch is one);
 * - RPCs between objects: the receiving classes' prototypes (`TenantObject`,
 *   `ConnectionObject.deliver`, and `SessionObject` for the session's incoming calls).
 *
 * Cloudflare counts fetches, D1 queries and calls to other Durable Objects as
 * subrequests of the invocation that makes them (README, "Restarts", Plan).
 * `wrangler dev` and miniflare enforce none of those limits, so this is how a test sees them.
 */
import { env } from "cloudflare:test";
import { ConnectionObject } from "../../src/durable/connection-object.js";
import { SessionObject } from "../../src/durable/session-object.js";
import { TenantObject } from "../../src/durable/tenant-object.js";

export interface Counts {
  /** Requests to the model's `/chat/completions`. */
  modelRequests: number;
  /** Any other `fetch` an object made (the mock's own control routes are the test's, not counted). */
  otherFetches: string[];
  /** D1 round trips, by the first table the statement names. */
  d1: Map<string, number>;
  /** Of those, the ones that begin with a read (`select`), by table. */
  d1Reads: Map<string, number>;
  /** Calls into the tenant object, by method. */
  tenant: Map<string, number>;
  /** `ConnectionObject.deliver` RPCs (one per outbox batch) and the frames they carried. */
  deliveries: number;
  deliveredFrames: number;
  /** Calls into session objects, by method: each one is an invocation of its own. */
  sessionCalls: Map<string, number>;
  /**
   * The most subrequests a session object made between two calls into it: what one invocation
   * makes if every incoming call starts a fresh budget (Cloudflare documents that reset for CPU).
   */
  maxBetweenCalls: number;
  /** Everything the session object sent out: model requests, other fetches, its D1 round trips, tenant RPCs, deliveries. */
  subrequests: number;
  /** Of those, D1 round trips and calls to the tenant object. */
  sessionD1: number;
  tenantRpcs: number;
}

/** D1 tables the tenant object writes (its usage flush), not the session object. */
export const TENANT_TABLES: ReadonlySet<string> = new Set(["tenant_usage"]);
/** The tenant object's own entry points, not calls the session makes to it. */
const TENANT_OWN = new Set(["alarm"]);

type Patched = { target: object; key: string; original: unknown };

export class BudgetMeter {
  #counts: Counts = BudgetMeter.#empty();
  readonly #patched: Patched[] = [];
  #inD1 = false;
  #window = 0;

  static #empty(): Counts {
    return { modelRequests: 0, otherFetches: [], d1: new Map(), d1Reads: new Map(), tenant: new Map(), deliveries: 0, deliveredFrames: 0, sessionCalls: new Map(), maxBetweenCalls: 0, subrequests: 0, sessionD1: 0, tenantRpcs: 0 };
  }

  /** Installs every counter; call before the session objects that are measured start. */
  install(): void {
    const meter = this;
    this.#wrap(globalThis, "fetch", (original) =>
      function fetch(this: unknown, input: RequestInfo | URL, init?: RequestInit) {
        const url = input instanceof Request ? input.url : String(input);
        if (url.includes("/chat/completions")) {
          meter.#counts.modelRequests++;
          meter.#subrequest();
        } else if (!url.includes("/_mock/")) {
          meter.#counts.otherFetches.push(url);
          meter.#subrequest();
        }
        return (original as typeof globalThis.fetch).call(globalThis, input, init);
      },
    );
    const db = env.DB;
    const statementProto = Object.getPrototypeOf(db.prepare("SELECT 1")) as object;
    for (const key of ["first", "run", "all", "raw"]) {
      this.#wrap(statementProto, key, (original) => function (this: { statement?: string }, ...args: unknown[]) {
        return meter.#d1Call(this.statement ?? "", () => (original as (...a: unknown[]) => unknown).apply(this, args));
      });
    }
    const dbProto = Object.getPrototypeOf(db) as object;
    this.#wrap(dbProto, "batch", (original) => function (this: unknown, statements: { statement?: string }[]) {
      return meter.#d1Call(statements[0]?.statement ?? "", () => (original as (s: unknown) => unknown).call(this, statements), "batch:");
    });
    this.#wrap(dbProto, "exec", (original) => function (this: unknown, sql: string) {
      return meter.#d1Call(sql, () => (original as (s: string) => unknown).call(this, sql));
    });
    for (const key of Object.getOwnPropertyNames(TenantObject.prototype)) {
      if (key === "constructor") continue;
      this.#wrap(TenantObject.prototype, key, (original) => function (this: unknown, ...args: unknown[]) {
        bump(meter.#counts.tenant, key);
        if (!TENANT_OWN.has(key)) {
          meter.#counts.tenantRpcs++;
          meter.#subrequest();
        }
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      });
    }
    this.#wrap(ConnectionObject.prototype, "deliver", (original) => function (this: unknown, frames: string[]) {
      meter.#counts.deliveries++;
      meter.#counts.deliveredFrames += frames.length;
      meter.#subrequest();
      return (original as (f: string[]) => unknown).call(this, frames);
    });
    for (const key of Object.getOwnPropertyNames(SessionObject.prototype)) {
      if (key === "constructor") continue;
      this.#wrap(SessionObject.prototype, key, (original) => function (this: unknown, ...args: unknown[]) {
        bump(meter.#counts.sessionCalls, key);
        // A heartbeat alarm (one per HEARTBEAT_MS of a running turn) adds nothing to the turn's work,
        // which goes on in the invocation that started it.
        if (key !== "alarm") meter.#window = 0;
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      });
    }
  }

  uninstall(): void {
    for (const { target, key, original } of this.#patched.reverse()) (target as Record<string, unknown>)[key] = original;
    this.#patched.length = 0;
  }

  /** Starts counting from zero. */
  reset(): void {
    this.#counts = BudgetMeter.#empty();
    this.#window = 0;
  }

  get counts(): Counts {
    return this.#counts;
  }

  #d1Call(sql: string, call: () => unknown, prefix = ""): unknown {
    // A batch may run its statements through the statement methods: one round trip, counted once.
    if (this.#inD1) return call();
    const table = tableOf(sql);
    bump(this.#counts.d1, prefix + table);
    if (/^\s*select\b/i.test(sql)) bump(this.#counts.d1Reads, table);
    if (!TENANT_TABLES.has(table)) {
      this.#counts.sessionD1++;
      this.#subrequest();
    }
    this.#inD1 = true;
    try {
      return call();
    } finally {
      this.#inD1 = false;
    }
  }

  #subrequest(): void {
    this.#counts.subrequests++;
    this.#window++;
    if (this.#window > this.#counts.maxBetweenCalls) this.#counts.maxBetweenCalls = this.#window;
  }

  #wrap(target: object, key: string, make: (original: unknown) => unknown): void {
    const original = (target as Record<string, unknown>)[key];
    if (typeof original !== "function") return;
    this.#patched.push({ target, key, original });
    (target as Record<string, unknown>)[key] = make(original);
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** The first table a statement names (`insert into "sessions"` → `sessions`), for attributing D1 work to an object. */
function tableOf(sql: string): string {
  const m = /\b(?:from|into|update|table)\s+["`]?([a-z_][a-z0-9_]*)/i.exec(sql);
  return m?.[1] ?? sql.slice(0, 30);
}

export function total(map: Map<string, number>): number {
  let n = 0;
  for (const v of map.values()) n += v;
  return n;
}
