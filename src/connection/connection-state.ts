/**
 * A connection's state, kept in its object's SQLite so it survives hibernation:
 * tenant, negotiated version, client capabilities and attached sessions.
 */
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import type { Principal } from "../session/access.js";

export interface ConnectionState {
  tenant: string;
  /** Who in the tenant (absent on connections opened before users: the admin). */
  principal?: Principal;
  initialized: boolean;
  protocolVersion: number | null;
  clientCapabilities: ClientCapabilities;
  sessions: string[];
  /** A binary frame arrived and was logged (once per connection). */
  binaryIgnored?: boolean;
  /** After `logout`, until `authenticate`. */
  loggedOut?: boolean;
  /** Opened over Streamable HTTP (POST initialize) rather than a WebSocket upgrade. */
  http?: boolean;
  /** A Streamable HTTP connection its revoked or expired key or link ended: later requests get this 401. */
  ended?: { message: string; reason: "revoked" | "expired" };
}

export class ConnectionStateStore {
  #cached: ConnectionState | null | undefined;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS connection_state (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL)`);
  }

  get(): ConnectionState | null {
    if (this.#cached === undefined) {
      const row = this.sql.exec<{ value: string }>(`SELECT value FROM connection_state WHERE id = 1`).toArray()[0];
      this.#cached = row ? (JSON.parse(row.value) as ConnectionState) : null;
    }
    return this.#cached;
  }

  save(state: ConnectionState): void {
    this.sql.exec(`INSERT OR REPLACE INTO connection_state (id, value) VALUES (1, ?)`, JSON.stringify(state));
    this.#cached = state;
  }

  update(patch: Partial<ConnectionState>): ConnectionState {
    const current = this.get();
    if (!current) throw new Error("connection state missing");
    const next = { ...current, ...patch };
    this.save(next);
    return next;
  }

  clear(): void {
    this.sql.exec(`DELETE FROM connection_state`);
    this.#cached = null;
  }
}
