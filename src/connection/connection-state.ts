/**
 * A connection's state, kept in its object's SQLite so it survives hibernation:
 * tenant, negotiated version, client capabilities and attached sessions.
 */
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import type { Principal } from "../session/access.js";
import { JsonRow } from "../json-row.js";

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
  readonly #row: JsonRow<ConnectionState>;

  constructor(sql: SqlStorage) {
    this.#row = new JsonRow(sql, "connection_state", "value");
  }

  get(): ConnectionState | null {
    return this.#row.get();
  }

  save(state: ConnectionState): void {
    this.#row.save(state);
  }

  update(patch: Partial<ConnectionState>): ConnectionState {
    const current = this.get();
    if (!current) throw new Error("connection state missing");
    const next = { ...current, ...patch };
    this.save(next);
    return next;
  }

  clear(): void {
    this.#row.clear();
  }
}
